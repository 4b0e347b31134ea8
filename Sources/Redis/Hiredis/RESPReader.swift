internal import CHiredis

/// Decodes RESP with hiredis's `redisReader`: bytes go in with ``feed(_:)``, whole replies come out of
/// ``next()`` as ``RedisReply`` values, decoded by length (binary-safe). One reader per socket
/// connection: after a protocol error it stays failed. Confined to its connection's thread.
final class RESPReader {
    private let reader: UnsafeMutablePointer<redisReader>

    init() {
        // hiredis returns NULL only when malloc fails.
        guard let reader = redisReaderCreate() else { fatalError("redisReaderCreate could not allocate") }
        self.reader = reader
    }

    deinit {
        redisReaderFree(reader)
    }

    /// Hands bytes read from the socket to hiredis, which copies them.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(RedisError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else {
            throw protocolError()
        }
    }

    /// The next complete reply, or `nil` when more bytes are needed.
    func next() throws(RedisError) -> RedisReply? {
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == REDIS_OK else { throw protocolError() }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return Self.reply(raw.assumingMemoryBound(to: redisReply.self))
    }

    private static func reply(_ pointer: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let reply = pointer.pointee
        switch reply.type {
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(reply), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(RedisError(serverReply: String(decoding: bytes(reply), as: UTF8.self)))
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(reply.integer))
        case REDIS_REPLY_STRING:
            return .bulk(Array(bytes(reply)))
        case REDIS_REPLY_ARRAY:
            let elements = UnsafeBufferPointer(start: reply.element, count: reply.elements)
            return .array(elements.map { element in element.map(Self.reply) ?? .null })
        default:
            return .null
        }
    }

    private static func bytes(_ reply: redisReply) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: reply.str, count: reply.len)
    }

    /// hiredis's own message (not server data), NUL-terminated inside its fixed 128-byte field.
    private func protocolError() -> RedisError {
        let text = withUnsafeBytes(of: reader.pointee.errstr) { field in
            String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
        }
        return RedisError(.protocolError, "cannot decode the server's reply: \(text)")
    }
}
