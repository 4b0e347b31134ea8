internal import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL: a fingerprint of a message that is not kept whole, such as
/// the original of a dead letter, which carries only a prefix of it.
public enum SHA256Digest {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return digest
    }

    /// The digest of `bytes` in lower-case hex, as `sha256sum` prints it.
    public static func hex(_ bytes: [UInt8]) -> String {
        String(decoding: digest(bytes).flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
