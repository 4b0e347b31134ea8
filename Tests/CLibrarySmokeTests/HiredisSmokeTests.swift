import CHiredis
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// hiredis is only a RESP codec in Pushline (the socket stays in Swift), so these tests never open
/// a connection: they format commands and parse replies from bytes.
@Suite("hiredis RESP codec")
struct HiredisSmokeTests {
    @Test func formatCommandArgvEncodesSetNxPxAsExactRESPBytes() throws {
        let encoded = try formatCommand(["SET", "key", "value", "NX", "PX", "1000"])
        let expected = "*6\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n$2\r\nNX\r\n$2\r\nPX\r\n$4\r\n1000\r\n"
        #expect(encoded == Array(expected.utf8))
    }

    @Test func readerParsesStatusReply() throws {
        #expect(try parseSingleReply("+OK\r\n") == .status("OK"))
    }

    @Test func readerParsesErrorReply() throws {
        #expect(try parseSingleReply("-ERR x\r\n") == .error("ERR x"))
    }

    @Test func readerParsesIntegerReply() throws {
        #expect(try parseSingleReply(":42\r\n") == .integer(42))
    }

    @Test func readerParsesBulkStringContainingNulByteByLength() throws {
        // "a\0b\r\nc": a NUL and an embedded CRLF; only the length prefix tells where it ends.
        let payload: [UInt8] = [0x61, 0x00, 0x62, 0x0D, 0x0A, 0x63]
        let wire = Array("$6\r\n".utf8) + payload + Array("\r\n".utf8)
        #expect(try parseSingleReply(wire) == .bulk(payload))
    }

    @Test func readerParsesNilBulkStringAsNilReply() throws {
        #expect(try parseSingleReply("$-1\r\n") == .nil)
    }

    @Test func readerParsesArrayOfMixedElements() throws {
        let wire = "*4\r\n$3\r\nfoo\r\n:7\r\n$-1\r\n*1\r\n+inner\r\n"
        #expect(try parseSingleReply(wire) == .array([
            .bulk(Array("foo".utf8)),
            .integer(7),
            .nil,
            .array([.status("inner")]),
        ]))
    }

    @Test func readerCompletesSplitReplyOnlyAfterSecondFeed() throws {
        let reader = try RESPReader()

        try reader.feed(Array("$5\r\nhel".utf8))
        #expect(try reader.nextReply() == nil, "half a bulk string must not produce a reply")

        try reader.feed(Array("lo\r\n".utf8))
        #expect(try reader.nextReply() == .bulk(Array("hello".utf8)))
        #expect(try reader.nextReply() == nil, "nothing is left after the one reply")
    }
}

// MARK: - Helpers

/// A RESP reply decoded into Swift values, so assertions never touch C memory.
private indirect enum RESPValue: Equatable {
    case status(String)
    case error(String)
    case integer(Int64)
    case bulk([UInt8])
    case `nil`
    case array([RESPValue])
}

private struct HiredisFailure: Error, CustomStringConvertible {
    let description: String
}

/// Owns one `redisReader` and frees it in `deinit`.
private final class RESPReader {
    private let reader: UnsafeMutablePointer<redisReader>

    init() throws {
        guard let reader = redisReaderCreate() else {
            throw HiredisFailure(description: "redisReaderCreate returned NULL")
        }
        self.reader = reader
    }

    deinit {
        redisReaderFree(reader)
    }

    func feed(_ bytes: [UInt8]) throws {
        // hiredis copies the bytes into its own buffer, so the pointer need only live for the call.
        let status = bytes.withUnsafeBytes { raw in
            redisReaderFeed(reader, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count)
        }
        guard status == REDIS_OK else {
            throw HiredisFailure(description: "redisReaderFeed failed: \(readerError())")
        }
    }

    /// The next complete reply, or nil when the bytes fed so far do not complete one.
    func nextReply() throws -> RESPValue? {
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == REDIS_OK else {
            throw HiredisFailure(description: "redisReaderGetReply failed: \(readerError())")
        }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return try decode(raw.assumingMemoryBound(to: redisReply.self))
    }

    private func readerError() -> String {
        withUnsafeBytes(of: reader.pointee.errstr) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// Copies a reply tree into Swift values. Strings are read by `len`: replies are binary-safe.
private func decode(_ reply: UnsafeMutablePointer<redisReply>) throws -> RESPValue {
    let node = reply.pointee
    func bytes() -> [UInt8] {
        guard let str = node.str, node.len > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: str, count: node.len))
    }
    switch node.type {
    case REDIS_REPLY_STATUS:
        return .status(String(decoding: bytes(), as: UTF8.self))
    case REDIS_REPLY_ERROR:
        return .error(String(decoding: bytes(), as: UTF8.self))
    case REDIS_REPLY_INTEGER:
        return .integer(node.integer)
    case REDIS_REPLY_STRING:
        return .bulk(bytes())
    case REDIS_REPLY_NIL:
        return .nil
    case REDIS_REPLY_ARRAY:
        guard node.elements > 0 else { return .array([]) }
        guard let elements = node.element else {
            throw HiredisFailure(description: "array reply with \(node.elements) elements has no element vector")
        }
        return .array(try (0..<node.elements).map { index in
            guard let element = elements[index] else {
                throw HiredisFailure(description: "array element \(index) is NULL")
            }
            return try decode(element)
        })
    default:
        throw HiredisFailure(description: "unexpected reply type \(node.type)")
    }
}

/// Feeds `wire` to a fresh reader and expects exactly one complete reply and nothing after it.
private func parseSingleReply(_ wire: [UInt8]) throws -> RESPValue {
    let reader = try RESPReader()
    try reader.feed(wire)
    guard let reply = try reader.nextReply() else {
        throw HiredisFailure(description: "no complete reply in \(wire.count) bytes")
    }
    if let extra = try reader.nextReply() {
        throw HiredisFailure(description: "unexpected second reply \(extra)")
    }
    return reply
}

private func parseSingleReply(_ wire: String) throws -> RESPValue {
    try parseSingleReply(Array(wire.utf8))
}

/// Encodes a command with `redisFormatCommandArgv` (the array form; `redisFormatCommand` is variadic).
private func formatCommand(_ arguments: [String]) throws -> [UInt8] {
    // Owned, NUL-free copies that outlive the C call; freed below.
    let copies: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    guard copies.allSatisfy({ $0 != nil }) else {
        throw HiredisFailure(description: "strdup failed")
    }
    // `const char **` imports as a mutable pointer, hence `var`; hiredis does not write through it.
    var argv: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
    let lengths: [Int] = arguments.map { $0.utf8.count }

    var target: UnsafeMutablePointer<CChar>?
    let length = argv.withUnsafeMutableBufferPointer { argvBuffer in
        lengths.withUnsafeBufferPointer { lengthBuffer in
            redisFormatCommandArgv(&target, Int32(arguments.count), argvBuffer.baseAddress, lengthBuffer.baseAddress)
        }
    }
    guard length >= 0, let target else {
        throw HiredisFailure(description: "redisFormatCommandArgv returned \(length)")
    }
    defer { redisFreeCommand(target) }
    return Array(UnsafeRawBufferPointer(start: target, count: Int(length)))
}
