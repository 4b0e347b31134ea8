internal import COpenSSL

/// A Lua script and its SHA-1, computed once here, so `EVALSHA` sends 40 bytes instead of the
/// source; a connection loads the source with `SCRIPT LOAD` only when the server answers `NOSCRIPT`.
public struct RedisScript: Sendable, Hashable {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    public let source: String
    /// The lowercase hex SHA-1 of ``source``: the name Redis gives the script.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        let bytes = Array(source.utf8)
        _ = bytes.withUnsafeBufferPointer { SHA1($0.baseAddress, $0.count, &digest) }
        let hex = digest.flatMap { [Self.hexDigits[Int($0 >> 4)], Self.hexDigits[Int($0 & 0x0F)]] }
        sha1 = String(decoding: hex, as: UTF8.self)
    }
}
