internal import COpenSSL

/// Reads P-256 keys from PEM, for ``ES256SigningKey`` and ``ES256VerifyingKey``.
enum P256PEM {
    /// A `PRIVATE KEY` (PKCS#8, an Apple `.p8` file) or a traditional `EC PRIVATE KEY` block.
    static func readPrivateKey(_ pem: String, operation: String) throws(OpenSSLError) -> OpaquePointer {
        try read(pem, operation: operation) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }
    }

    /// A `PUBLIC KEY` (SubjectPublicKeyInfo) block.
    static func readPublicKey(_ pem: String, operation: String) throws(OpenSSLError) -> OpaquePointer {
        try read(pem, operation: operation) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
    }

    private static func read(_ pem: String, operation: String,
                             _ parse: (OpaquePointer) -> OpaquePointer?) throws(OpenSSLError) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return parse(bio)
        }
        guard let key else { throw .drainingQueue(operation: operation) }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else {
            EVP_PKEY_free(key)
            throw OpenSSLError(operation: operation, reason: "not a P-256 EC key")
        }
        return key
    }
}
