internal import COpenSSL

/// AES-256-GCM through OpenSSL's EVP AEAD interface, in CryptoKit's `AES.GCM.SealedBox.combined`
/// layout: a 12-byte nonce, the ciphertext, then the 16-byte tag. Nonces come from `RAND_bytes`.
///
/// The key never prints: descriptions and mirrors show `<AES-256 key>`, so a value holding one can
/// be logged or dumped whole.
public struct AES256GCM: Sendable, CustomStringConvertible, CustomReflectable {
    public static let keyByteCount = 32
    public static let nonceByteCount = 12
    public static let tagByteCount = 16
    /// What sealing adds to the plaintext: the nonce and the tag.
    public static let overhead = nonceByteCount + tagByteCount

    private let key: [UInt8]

    /// The cipher fetched from the default provider once: `EVP_aes_256_gcm()` makes OpenSSL 3 fetch
    /// it again (a name lookup under a lock) at every initialisation. An `EVP_CIPHER` is read-only
    /// once fetched and may be used from any thread.
    nonisolated(unsafe) private static let algorithm: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)

    /// A cipher under `key`, which must be 32 bytes.
    public init(key: [UInt8]) throws(OpenSSLError) {
        guard key.count == Self.keyByteCount else {
            throw OpenSSLError(operation: "AES-256-GCM key", reason: "a key has \(Self.keyByteCount) bytes, got \(key.count)")
        }
        self.key = key
    }

    /// A new random key (`RAND_bytes`).
    public static func randomKey() throws(OpenSSLError) -> [UInt8] {
        try randomBytes(keyByteCount)
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    public static func randomBytes(_ count: Int) throws(OpenSSLError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw OpenSSLError.drainingQueue(operation: "RAND_bytes") }
        return bytes
    }

    public var description: String { "<AES-256 key>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Seals `plaintext` under a fresh random nonce: nonce ‖ ciphertext ‖ tag.
    public func seal(_ plaintext: [UInt8], authenticating additionalData: [UInt8] = []) throws(OpenSSLError) -> [UInt8] {
        try seal(plaintext, nonce: Self.randomBytes(Self.nonceByteCount), authenticating: additionalData)
    }

    /// Seals `plaintext` under `nonce` (12 bytes; never reuse one with the same key).
    public func seal(_ plaintext: [UInt8], nonce: [UInt8], authenticating additionalData: [UInt8] = []) throws(OpenSSLError) -> [UInt8] {
        guard nonce.count == Self.nonceByteCount else {
            throw OpenSSLError(operation: "AES-256-GCM seal", reason: "a nonce has \(Self.nonceByteCount) bytes, got \(nonce.count)")
        }
        var combined = [UInt8](repeating: 0, count: plaintext.count + Self.overhead)
        combined.replaceSubrange(0..<Self.nonceByteCount, with: nonce)
        let context = try Self.context(operation: "AES-256-GCM seal")
        defer { EVP_CIPHER_CTX_free(context) }
        let sealed: Bool = combined.withUnsafeMutableBufferPointer { out in
            var length: Int32 = 0
            guard EVP_EncryptInit_ex(context, Self.algorithm ?? EVP_aes_256_gcm(), nil, key, nonce) == 1,
                  Self.update(context, additionalData, output: nil, encrypting: true),
                  plaintext.isEmpty || EVP_EncryptUpdate(context, out.baseAddress! + Self.nonceByteCount, &length, plaintext,
                                                         Int32(plaintext.count)) == 1,
                  EVP_EncryptFinal_ex(context, out.baseAddress! + Self.nonceByteCount + Int(length), &length) == 1 else { return false }
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagByteCount),
                                       out.baseAddress! + Self.nonceByteCount + plaintext.count) == 1
        }
        guard sealed else { throw OpenSSLError.drainingQueue(operation: "AES-256-GCM seal") }
        return combined
    }

    /// Opens nonce ‖ ciphertext ‖ tag; throws when the tag does not verify (wrong key, altered
    /// bytes or additional data).
    public func open(_ combined: [UInt8], authenticating additionalData: [UInt8] = []) throws(OpenSSLError) -> [UInt8] {
        guard combined.count >= Self.overhead else {
            throw OpenSSLError(operation: "AES-256-GCM open", reason: "a sealed box has at least \(Self.overhead) bytes, got \(combined.count)")
        }
        let ciphertextCount = combined.count - Self.overhead
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        let context = try Self.context(operation: "AES-256-GCM open")
        defer { EVP_CIPHER_CTX_free(context) }
        let opened: Bool = combined.withUnsafeBufferPointer { input in
            plaintext.withUnsafeMutableBufferPointer { out in
                var length: Int32 = 0
                var tag = Array(input[(input.count - Self.tagByteCount)...])
                guard EVP_DecryptInit_ex(context, Self.algorithm ?? EVP_aes_256_gcm(), nil, key, input.baseAddress) == 1,
                      Self.update(context, additionalData, output: nil, encrypting: false),
                      ciphertextCount == 0 || EVP_DecryptUpdate(context, out.baseAddress, &length, input.baseAddress! + Self.nonceByteCount,
                                                                Int32(ciphertextCount)) == 1,
                      EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagByteCount), &tag) == 1 else { return false }
                var finalLength: Int32 = 0
                var scratch = [UInt8](repeating: 0, count: 16)
                return EVP_DecryptFinal_ex(context, &scratch, &finalLength) == 1
            }
        }
        guard opened else {
            ERR_clear_error()
            throw OpenSSLError(operation: "AES-256-GCM open", reason: "the tag does not verify: wrong key or altered bytes")
        }
        return plaintext
    }

    private static func context(operation: String) throws(OpenSSLError) -> OpaquePointer {
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.drainingQueue(operation: operation) }
        return context
    }

    /// Feeds additional authenticated data (no output) when there is any.
    private static func update(_ context: OpaquePointer, _ data: [UInt8], output: UnsafeMutablePointer<UInt8>?, encrypting: Bool) -> Bool {
        guard !data.isEmpty else { return true }
        var length: Int32 = 0
        return encrypting ? EVP_EncryptUpdate(context, output, &length, data, Int32(data.count)) == 1
            : EVP_DecryptUpdate(context, output, &length, data, Int32(data.count)) == 1
    }
}
