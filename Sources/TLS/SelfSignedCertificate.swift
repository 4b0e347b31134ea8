internal import COpenSSL
import Foundation

/// A self-signed X.509 certificate with a fresh P-256 key, as PEM text: for a local server that
/// has no certificate of its own (the simulator), and for test clients using certificate auth.
public struct SelfSignedCertificate: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String

    /// - Parameters:
    ///   - commonName: the subject CN.
    ///   - alternativeNames: subjectAltName entries such as `DNS:localhost`, `IP:127.0.0.1`.
    ///   - userID: a subject `UID` (how Apple's push certificates name their bundle id), if any.
    ///   - validDays: validity from now.
    public init(commonName: String, alternativeNames: [String] = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"],
                userID: String? = nil, validDays: Int = 365) throws(OpenSSLError) {
        let key = try ES256SigningKey.generate()
        guard let certificate = X509_new() else { throw .drainingQueue(operation: "create certificate") }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        var serial = UInt64.random(in: 1...UInt64(Int64.max))
        let serialNumber = BN_bin2bn(&serial, 8, nil)
        defer { BN_free(serialNumber) }
        BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(certificate))
        X509_gmtime_adj(X509_getm_notBefore(certificate), -60)
        X509_gmtime_adj(X509_getm_notAfter(certificate), validDays * 24 * 3600)
        X509_set_pubkey(certificate, key.pkey)
        let name = X509_get_subject_name(certificate)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0)
        if let userID {
            X509_NAME_add_entry_by_txt(name, "UID", MBSTRING_UTF8, userID, -1, -1, 0)
        }
        X509_set_issuer_name(certificate, name)
        if !alternativeNames.isEmpty {
            guard let extensionValue = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, alternativeNames.joined(separator: ",")) else {
                throw .drainingQueue(operation: "encode subjectAltName")
            }
            X509_add_ext(certificate, extensionValue, -1)
            X509_EXTENSION_free(extensionValue)
        }
        guard X509_sign(certificate, key.pkey, EVP_sha256()) > 0 else { throw .drainingQueue(operation: "sign certificate") }
        certificatePEM = try PEMText.write(operation: "write certificate") { PEM_write_bio_X509($0, certificate) }
        privateKeyPEM = try PEMText.write(operation: "write private key") {
            PEM_write_bio_PrivateKey($0, key.pkey, nil, nil, 0, nil, nil)
        }
    }
}

extension SelfSignedCertificate {
    /// Writes `certificate.pem` and `private-key.pem` (readable by the owner only) into
    /// `directory`, creating it, and returns their paths.
    public func write(to directory: URL) throws -> (certificateFile: String, privateKeyFile: String) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificateFile = directory.appendingPathComponent("certificate.pem").path
        let privateKeyFile = directory.appendingPathComponent("private-key.pem").path
        try certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try privateKeyPEM.write(toFile: privateKeyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: privateKeyFile)
        return (certificateFile, privateKeyFile)
    }
}

/// Writes PEM through a memory BIO and returns the text.
enum PEMText {
    static func write(operation: String, _ body: (OpaquePointer) -> Int32) throws(OpenSSLError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .drainingQueue(operation: operation) }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { throw .drainingQueue(operation: operation) }
        var pem: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = BIO_read(bio, &chunk, Int32(chunk.count))
            guard count > 0 else { break }
            pem.append(contentsOf: chunk[0..<Int(count)])
        }
        return String(decoding: pem, as: UTF8.self)
    }
}
