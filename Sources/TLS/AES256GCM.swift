internal import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

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
        var combined: [UInt8] = []
        try withSealedBox(plaintext, nonce: nil, authenticating: additionalData) { combined = Array($0) }
        return combined
    }

    /// Seals `plaintext` under `nonce` (12 bytes; never reuse one with the same key).
    public func seal(_ plaintext: [UInt8], nonce: [UInt8], authenticating additionalData: [UInt8] = []) throws(OpenSSLError) -> [UInt8] {
        var combined: [UInt8] = []
        try withSealedBox(plaintext, nonce: nonce[...], authenticating: additionalData) { combined = Array($0) }
        return combined
    }

    /// Seals `plaintext` into a temporary buffer, nonce ‖ ciphertext ‖ tag, and lends it to `body`:
    /// a box that goes on as base64 needs no array of its own. `nonce`: 12 bytes (never reuse one
    /// with the same key); nil draws a fresh random one straight into the box. The buffer is valid
    /// only inside `body`.
    ///
    /// Not generic in what `body` returns: called from another module, a generic one had the
    /// runtime look up the metadata of the `Result` it kept the outcome in, under a lock, at every
    /// seal (docs/BENCHMARKS.md, issue 19's eleventh round).
    public func withSealedBox(_ plaintext: [UInt8], nonce: ArraySlice<UInt8>?, authenticating additionalData: [UInt8] = [],
                              _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(OpenSSLError) {
        if let nonce, nonce.count != Self.nonceByteCount {
            throw OpenSSLError(operation: "AES-256-GCM seal", reason: "a nonce has \(Self.nonceByteCount) bytes, got \(nonce.count)")
        }
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: plaintext.count + Self.overhead) { box throws(OpenSSLError) in
            if let nonce {
                _ = box.initialize(fromContentsOf: nonce)
            } else if RAND_bytes(box.baseAddress, Int32(Self.nonceByteCount)) != 1 {
                throw OpenSSLError.drainingQueue(operation: "RAND_bytes")
            }
            guard seal(plaintext, into: box, authenticating: additionalData) else {
                throw OpenSSLError.drainingQueue(operation: "AES-256-GCM seal")
            }
            body(UnsafeBufferPointer(box))
        }
    }

    /// Fills `box` (the plaintext's length plus ``overhead``, the nonce in its first 12 bytes) with
    /// the ciphertext and the tag; false when OpenSSL failed.
    private func seal(_ plaintext: [UInt8], into box: UnsafeMutableBufferPointer<UInt8>, authenticating additionalData: [UInt8]) -> Bool {
        let out = box.baseAddress!
        return Self.withContext(key: key, nonce: out, encrypting: true) { context in
            var length: Int32 = 0
            guard Self.update(context, additionalData, output: nil, encrypting: true),
                  plaintext.isEmpty || EVP_EncryptUpdate(context, out + Self.nonceByteCount, &length, plaintext, Int32(plaintext.count)) == 1,
                  EVP_EncryptFinal_ex(context, out + Self.nonceByteCount + Int(length), &length) == 1 else { return false }
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagByteCount), out + Self.nonceByteCount + plaintext.count) == 1
        } == true
    }

    /// Opens nonce ‖ ciphertext ‖ tag; throws when the tag does not verify (wrong key, altered
    /// bytes or additional data).
    public func open(_ combined: [UInt8], authenticating additionalData: [UInt8] = []) throws(OpenSSLError) -> [UInt8] {
        guard combined.count >= Self.overhead else {
            throw OpenSSLError(operation: "AES-256-GCM open", reason: "a sealed box has at least \(Self.overhead) bytes, got \(combined.count)")
        }
        let ciphertextCount = combined.count - Self.overhead
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        let opened = combined.withUnsafeBufferPointer { input in
            Self.withContext(key: key, nonce: input.baseAddress!, encrypting: false) { context in
                plaintext.withUnsafeMutableBufferPointer { out in
                    var length: Int32 = 0
                    // OpenSSL copies the tag; it never writes through this pointer.
                    let tag = UnsafeMutableRawPointer(mutating: input.baseAddress! + (input.count - Self.tagByteCount))
                    guard Self.update(context, additionalData, output: nil, encrypting: false),
                          ciphertextCount == 0 || EVP_DecryptUpdate(context, out.baseAddress, &length, input.baseAddress! + Self.nonceByteCount,
                                                                    Int32(ciphertextCount)) == 1,
                          EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagByteCount), tag) == 1 else { return false }
                    // GCM writes nothing at the end; the pointer only has to be valid.
                    var final: UInt8 = 0
                    return EVP_DecryptFinal_ex(context, &final, &length) == 1
                }
            }
        }
        guard let opened else { throw OpenSSLError.drainingQueue(operation: "AES-256-GCM open") }
        guard opened else {
            ERR_clear_error()
            throw OpenSSLError(operation: "AES-256-GCM open", reason: "the tag does not verify: wrong key or altered bytes")
        }
        return plaintext
    }

    /// Each thread's ``AES256GCMContext``, kept between seals and opens and released when the thread
    /// ends. Nil when the thread-specific key could not be made: then each use makes a context of its own.
    private static let threadContext: pthread_key_t? = {
        var key = pthread_key_t()
        guard pthread_key_create(&key, { $0.map { Unmanaged<AES256GCMContext>.fromOpaque($0).release() } }) == 0 else { return nil }
        return key
    }()

    /// Runs `body` with a context initialised for `key` and `nonce` (12 bytes) — this thread's when
    /// it has one — and returns what it returned; nil when no context could be made. A context whose
    /// use failed is dropped, not kept.
    private static func withContext(key: [UInt8], nonce: UnsafePointer<UInt8>, encrypting: Bool,
                                    _ body: (OpaquePointer) -> Bool) -> Bool? {
        let kept = threadContext.flatMap { pthread_getspecific($0) }.map { Unmanaged<AES256GCMContext>.fromOpaque($0) }
        guard let context = kept?.takeUnretainedValue() ?? AES256GCMContext(cipher: algorithm) else { return nil }
        let succeeded = context.run(key: key, nonce: nonce, encrypting: encrypting, body)
        if let threadContext {
            if succeeded, kept == nil {
                let retained = Unmanaged.passRetained(context)
                if pthread_setspecific(threadContext, retained.toOpaque()) != 0 { retained.release() }
            } else if !succeeded, let kept {
                pthread_setspecific(threadContext, nil)
                kept.release()
            }
        }
        return succeeded
    }

    /// Feeds additional authenticated data (no output) when there is any.
    private static func update(_ context: OpaquePointer, _ data: [UInt8], output: UnsafeMutablePointer<UInt8>?, encrypting: Bool) -> Bool {
        guard !data.isEmpty else { return true }
        var length: Int32 = 0
        return encrypting ? EVP_EncryptUpdate(context, output, &length, data, Int32(data.count)) == 1
            : EVP_DecryptUpdate(context, output, &length, data, Int32(data.count)) == 1
    }
}
