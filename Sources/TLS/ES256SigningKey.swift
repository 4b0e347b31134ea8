internal import COpenSSL
internal import CPushlineShims

/// An ECDSA P-256 private key that signs with SHA-256 (JOSE `ES256`), as used by APNs provider
/// tokens.
///
/// Owns one OpenSSL `EVP_PKEY`. Signing only reads the key, which OpenSSL allows from several
/// threads at once, so the type is `Sendable`.
public final class ES256SigningKey: @unchecked Sendable {
    // Safe to share: `pkey` is never mutated after `init`; OpenSSL's EVP signing reads it only.
    let pkey: OpaquePointer

    /// Reads a PKCS#8 PEM private key (an Apple `.p8` file's contents).
    public init(pem: String) throws(OpenSSLError) {
        self.pkey = try P256PEM.readPrivateKey(pem, operation: "read ES256 private key")
    }

    /// Generates a fresh P-256 key (for tests and self-signed simulator credentials).
    public static func generate() throws(OpenSSLError) -> ES256SigningKey {
        guard let key = pushline_generate_p256_key() else {
            throw .drainingQueue(operation: "generate P-256 key")
        }
        return ES256SigningKey(owning: key)
    }

    private init(owning key: OpaquePointer) {
        self.pkey = key
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// The public half as a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) block.
    public func publicKeyPEM() throws(OpenSSLError) -> String {
        try PEMText.write(operation: "export public key") { PEM_write_bio_PUBKEY($0, pkey) }
    }

    /// Signs `message` with ECDSA over SHA-256 and returns the JOSE form: the 64 bytes `r‖s`,
    /// each big-endian and left-padded to 32 bytes (OpenSSL itself produces DER).
    public func sign(_ message: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let der = try signDER(message)
        return try Self.joseSignature(fromDER: der)
    }

    private func signDER(_ message: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .drainingQueue(operation: "ES256 sign") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw .drainingQueue(operation: "ES256 sign")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw .drainingQueue(operation: "ES256 sign")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            throw .drainingQueue(operation: "ES256 sign")
        }
        der.removeSubrange(length...)
        return der
    }

    private static func joseSignature(fromDER der: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw .drainingQueue(operation: "decode ECDSA signature") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var jose = [UInt8](repeating: 0, count: 64)
        let written = jose.withUnsafeMutableBufferPointer { buffer -> Bool in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32
                && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        guard written else { throw .drainingQueue(operation: "encode ECDSA signature") }
        return jose
    }
}
