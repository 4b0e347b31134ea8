import Digests

/// A Lua script and its SHA-1, computed once here, so `EVALSHA` sends 40 bytes instead of the
/// source; a connection loads the source with `SCRIPT LOAD` only when the server answers `NOSCRIPT`.
public struct RedisScript: Sendable, Hashable {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    public let source: String
    /// The lowercase hex SHA-1 of ``source``: the name Redis gives the script.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        let hex = SHA1.digest(Array(source.utf8)).flatMap { [Self.hexDigits[Int($0 >> 4)], Self.hexDigits[Int($0 & 0x0F)]] }
        sha1 = String(decoding: hex, as: UTF8.self)
    }
}
