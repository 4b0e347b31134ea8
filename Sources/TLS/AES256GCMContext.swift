internal import COpenSSL

/// One OpenSSL cipher context for AES-256-GCM and the key it was last given, kept by a thread
/// between seals and opens (``AES256GCM``): a context made for every box (allocated, given the
/// cipher, which makes OpenSSL look up an engine for it under a global lock, and the provider's GCM
/// state allocated) cost more than sealing a notification's fields, and giving a key computes its
/// AES schedule and GCM's hash key again. Each use sets its own nonce, and the key only when it is
/// not the one the context holds: the registry's unwraps of a batch all run under the
/// key-encryption key. The last key (its schedule, and a reference to its bytes) stays until the
/// thread's next use with another key, or until the thread ends. Not thread-safe: one per thread.
final class AES256GCMContext {
    private let context: OpaquePointer
    /// The key the context holds; nil before the first use.
    private var key: [UInt8]?

    /// A context given the cipher, without key or nonce; nil when OpenSSL cannot make one.
    init?(cipher: OpaquePointer?) {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        guard EVP_CipherInit_ex(context, cipher ?? EVP_aes_256_gcm(), nil, nil, nil, 1) == 1 else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Runs `body` with the context initialised for `key` and `nonce` (12 bytes), in the direction
    /// `encrypting` says, and returns what it returned (false when the initialisation failed).
    /// GCM uses the same key schedule both ways, so a held key serves seals and opens alike.
    func run(key: [UInt8], nonce: UnsafePointer<UInt8>, encrypting: Bool, _ body: (OpaquePointer) -> Bool) -> Bool {
        let holdsKey = self.key == key
        guard EVP_CipherInit_ex(context, nil, nil, holdsKey ? nil : key, nonce, encrypting ? 1 : 0) == 1 else {
            self.key = nil
            return false
        }
        self.key = key
        return body(context)
    }
}
