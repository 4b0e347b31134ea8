internal import COpenSSL

/// An ECDSA P-256 public key that checks ES256 signatures: what the simulator uses to verify
/// provider tokens.
///
/// Owns one OpenSSL `EVP_PKEY`. Verifying only reads the key, which OpenSSL allows from several
/// threads at once, so the type is `Sendable`.
public final class ES256VerifyingKey: @unchecked Sendable {
    // Safe to share: `pkey` is never mutated after `init`; OpenSSL's EVP verification reads it only.
    private let pkey: OpaquePointer

    /// Reads a PEM `PUBLIC KEY` block or, when the PEM holds a private key (an Apple `.p8` file),
    /// keeps that key and uses only its public half.
    public init(pem: String) throws(OpenSSLError) {
        if pem.contains("PRIVATE KEY-----") {
            self.pkey = try P256PEM.readPrivateKey(pem, operation: "read ES256 verifying key")
        } else {
            self.pkey = try P256PEM.readPublicKey(pem, operation: "read ES256 verifying key")
        }
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Whether `signature` is a valid ECDSA-SHA-256 signature of `message` under this key.
    ///
    /// Accepts both encodings clients send (spec §3.1): the JOSE form, 64 bytes `r‖s`, and DER.
    /// A 64-byte signature is read as JOSE first and, failing that, as DER, because a DER signature
    /// with short integers can also be 64 bytes long.
    public func verify(message: [UInt8], signature: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        if signature.count == 64, let der = Self.derSignature(fromJOSE: signature), verifyDER(message, der) {
            return true
        }
        return verifyDER(message, signature)
    }

    private func verifyDER(_ message: [UInt8], _ der: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    /// DER `SEQUENCE { INTEGER r, INTEGER s }` from the 64 bytes `r‖s`, encoded by OpenSSL.
    private static func derSignature(fromJOSE jose: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = jose.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = jose.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
