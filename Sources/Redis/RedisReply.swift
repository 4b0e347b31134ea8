/// One RESP2 reply, typed. Bulk strings are bytes (binary-safe: NUL bytes and invalid UTF-8 come
/// through unchanged); an error reply carries a ``RedisError`` with code ``RedisError/Code/serverError``.
public enum RedisReply: Sendable, Equatable {
    /// A simple string, such as `OK` or `PONG`.
    case status(String)
    /// An error reply, such as `WRONGTYPE Operation against a key holding the wrong kind of value`.
    case error(RedisError)
    case integer(Int64)
    /// A bulk string, exactly as the server sent it.
    case bulk([UInt8])
    /// The null bulk string or null array: a missing key, a `SET … NX` that did not set.
    case null
    case array([RedisReply])

    /// The text of a status reply, or a bulk reply decoded as UTF-8 (invalid sequences replaced).
    public var string: String? {
        switch self {
        case .status(let text): text
        case .bulk(let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// The bytes of a bulk reply.
    public var bytes: [UInt8]? {
        if case .bulk(let bytes) = self { bytes } else { nil }
    }

    /// The value of an integer reply.
    public var integer: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The elements of an array reply.
    public var array: [RedisReply]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The server error of an error reply.
    public var error: RedisError? {
        if case .error(let error) = self { error } else { nil }
    }
}
