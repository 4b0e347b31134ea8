import Foundation

/// Checks ES256 signatures with the `openssl` command-line tool: a verifier that shares no code
/// with Pushline's signer (another process, OpenSSL's own DER parsing and PEM loading).
public enum OpenSSLCommandLine {
    /// Whether `rawSignature` (JOSE `r‖s`, 64 bytes) is a valid ES256 signature of `message` under
    /// the public key in `publicKeyPEMFile`.
    public static func verifyES256(message: [UInt8], rawSignature: [UInt8], publicKeyPEMFile: String) throws -> Bool {
        guard rawSignature.count == 64 else { return false }
        let openssl = try ExternalCommand.locate("openssl", package: "openssl")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let messageFile = directory.appendingPathComponent("message")
        let signatureFile = directory.appendingPathComponent("signature.der")
        try Data(message).write(to: messageFile)
        try Data(derSignature(r: Array(rawSignature[0..<32]), s: Array(rawSignature[32..<64]))).write(to: signatureFile)
        let result = try ExternalCommand.run(openssl, [
            "dgst", "-sha256", "-verify", publicKeyPEMFile, "-signature", signatureFile.path, messageFile.path,
        ])
        return result.status == 0 && result.standardOutput.contains("Verified OK")
    }

    /// DER `SEQUENCE { INTEGER r, INTEGER s }`, written here rather than by OpenSSL so the check stays
    /// independent of the signer's conversion.
    public static func derSignature(r: [UInt8], s: [UInt8]) -> [UInt8] {
        let body = derInteger(r) + derInteger(s)
        return [0x30, UInt8(body.count)] + body
    }

    private static func derInteger(_ bigEndian: [UInt8]) -> [UInt8] {
        var digits = Array(bigEndian.drop { $0 == 0 })
        if digits.isEmpty { digits = [0] }
        if digits[0] & 0x80 != 0 { digits.insert(0, at: 0) }
        return [0x02, UInt8(digits.count)] + digits
    }
}
