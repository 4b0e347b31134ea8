import COpenSSL
import CPushlineShims
import Testing

/// OpenSSL signs APNs provider tokens (ES256: ECDSA over P-256 with SHA-256).
@Suite("OpenSSL ES256")
struct OpenSSLSmokeTests {
    private static let message = Array(#"{"alg":"ES256","kid":"DEVKEY0001"}.{"iss":"DEVTEAM001","iat":1700000000}"#.utf8)

    @Test func es256SignatureVerifiesWithTheSigningKey() throws {
        let key = try PrivateKey.generateP256()
        let signature = try key.signSHA256(Self.message)

        #expect(try key.verifySHA256(signature: signature, over: Self.message) == 1)
    }

    @Test func es256SignatureDoesNotVerifyForTamperedMessage() throws {
        let key = try PrivateKey.generateP256()
        let signature = try key.signSHA256(Self.message)
        var tampered = Self.message
        tampered[tampered.count - 1] ^= 0x01

        // 0 is "signature does not match"; a negative value would be an error, not a verdict.
        #expect(try key.verifySHA256(signature: signature, over: tampered) == 0)
    }

    @Test func es256SignatureIsDEREncodedNotRawJWTForm() throws {
        // A JWT needs raw 64-byte r‖s; OpenSSL hands back a DER SEQUENCE that must be converted.
        let signature = try PrivateKey.generateP256().signSHA256(Self.message)

        #expect(signature.first == 0x30, "DER SEQUENCE tag")
        #expect((8...72).contains(signature.count), "DER ECDSA P-256 signature, got \(signature.count) bytes")
        #expect(Int(signature[1]) == signature.count - 2, "DER length covers the rest")
    }

    @Test func devProviderKeyReadsBackAsP256ECKey() throws {
        let key = try PrivateKey.readPEM(path: Self.devProviderKeyPath())

        #expect(key.baseID == EVP_PKEY_EC)
        #expect(key.bits == 256)
        #expect(key.groupName == "prime256v1")
    }

    /// `Config/dev/dev-provider-key.p8`, found from this file: `<root>/Tests/CLibrarySmokeTests/<file>`.
    private static func devProviderKeyPath(filePath: String = #filePath) -> String {
        var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)
        return (components + ["Config", "dev", "dev-provider-key.p8"]).joined(separator: "/")
    }
}

// MARK: - Helpers

private struct OpenSSLFailure: Error, CustomStringConvertible {
    let description: String

    /// Names the failed call and drains OpenSSL's error queue into the message.
    init(_ call: String) {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        description = "\(call) failed" + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; "))
    }
}

/// Owns one `EVP_PKEY` and frees it in `deinit`.
private final class PrivateKey {
    private let pkey: OpaquePointer

    private init(_ pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    static func generateP256() throws -> PrivateKey {
        guard let pkey = pushline_generate_p256_key() else {
            throw OpenSSLFailure("pushline_generate_p256_key")
        }
        return PrivateKey(pkey)
    }

    static func readPEM(path: String) throws -> PrivateKey {
        guard let bio = BIO_new_file(path, "r") else {
            throw OpenSSLFailure("BIO_new_file(\(path))")
        }
        defer { BIO_free(bio) }
        guard let pkey = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
            throw OpenSSLFailure("PEM_read_bio_PrivateKey(\(path))")
        }
        return PrivateKey(pkey)
    }

    var baseID: Int32 { EVP_PKEY_get_base_id(pkey) }

    var bits: Int32 { EVP_PKEY_get_bits(pkey) }

    var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &buffer, buffer.count, &length) == 1 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// ECDSA-SHA256 signature over `message`, DER-encoded as OpenSSL returns it.
    func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw OpenSSLFailure("EVP_DigestSignInit")
        }
        // First call sizes the buffer (an upper bound: DER signatures vary in length).
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw OpenSSLFailure("EVP_DigestSign (size)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw OpenSSLFailure("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }

    /// The raw `EVP_DigestVerify` result: 1 valid, 0 mismatch, negative on error.
    func verifySHA256(signature: [UInt8], over message: [UInt8]) throws -> Int32 {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw OpenSSLFailure("EVP_DigestVerifyInit")
        }
        let result = EVP_DigestVerify(context, signature, signature.count, message, message.count)
        // A mismatch leaves a reason on this thread's error queue; don't leak it into later calls.
        ERR_clear_error()
        return result
    }
}
