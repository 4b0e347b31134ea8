internal import CHiredis

/// Decodes RESP with hiredis's `redisReader`: bytes go in with ``feed(_:)``, whole replies come out of
/// ``next()`` as ``RedisReply`` values, decoded by length (binary-safe). One reader per socket
/// connection: after a protocol error it stays failed. Confined to its connection's thread.
///
/// hiredis builds its replies through a table of functions. Ours do not allocate hiredis reply
/// objects: each only records the item it is given (a value, or an array's length) in ``items``, in
/// the order hiredis parses them, and ``next()`` assembles the finished reply from those records.
final class RESPReader {
    /// One parsed item, in parse order: an array's header comes before its elements.
    enum Item {
        case value(RedisReply)
        case arrayHeader(count: Int)
    }

    private let functions: UnsafeMutablePointer<redisReplyObjectFunctions>
    private let reader: UnsafeMutablePointer<redisReader>
    /// The items of the reply being parsed; filled by the callbacks, emptied by ``next()``. One
    /// append per item; the callbacks run inside hiredis while no Swift access to it is open, so
    /// the runtime's exclusivity check is left out (docs/BENCHMARKS.md, "Exclusivity checks").
    @exclusivity(unchecked) fileprivate var items: [Item] = []

    init() {
        functions = .allocate(capacity: 1)
        functions.initialize(to: redisReplyObjectFunctions(
            createString: recordString, createArray: recordArray, createInteger: recordInteger, createNil: recordNil,
            freeObject: { _ in }
        ))
        // hiredis returns NULL only when malloc fails.
        guard let reader = redisReaderCreateWithFunctions(functions) else { fatalError("redisReaderCreate could not allocate") }
        self.reader = reader
        reader.pointee.privdata = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        redisReaderFree(reader)
        functions.deallocate()
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
        var finished: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &finished) == REDIS_OK else { throw protocolError() }
        guard finished != nil else { return nil }
        defer { items.removeAll(keepingCapacity: true) }
        if items.count == 1, case .value(let reply) = items[0] { return reply }
        var index = 0
        return assemble(at: &index)
    }

    /// The reply that starts at `items[index]`, moving `index` past it.
    private func assemble(at index: inout Int) -> RedisReply {
        let item = items[index]
        index += 1
        switch item {
        case .value(let reply):
            return reply
        case .arrayHeader(let count):
            var elements: [RedisReply] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(assemble(at: &index)) }
            return .array(elements)
        }
    }

    /// hiredis's own message (not server data), NUL-terminated inside its fixed 128-byte field.
    private func protocolError() -> RedisError {
        items.removeAll(keepingCapacity: true)
        let text = withUnsafeBytes(of: reader.pointee.errstr) { field in
            String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
        }
        return RedisError(.protocolError, "cannot decode the server's reply: \(text)")
    }
}

// The callbacks hiredis makes while parsing. Each records its item with the reader named by the
// task's `privdata` and returns that pointer as the "object": hiredis only checks it is not NULL
// (NULL would mean out of memory) and hands it back as the finished reply.

private func record(_ item: RESPReader.Item, for task: UnsafePointer<redisReadTask>?) -> UnsafeMutableRawPointer? {
    guard let owner = task?.pointee.privdata else { return nil }
    Unmanaged<RESPReader>.fromOpaque(owner).takeUnretainedValue().items.append(item)
    return owner
}

private func recordString(_ task: UnsafePointer<redisReadTask>?, _ bytes: UnsafeMutablePointer<CChar>?, _ length: Int) -> UnsafeMutableRawPointer? {
    let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
    let reply: RedisReply = switch task?.pointee.type {
    case REDIS_REPLY_STATUS: .status(String(decoding: buffer, as: UTF8.self))
    case REDIS_REPLY_ERROR: .error(RedisError(serverReply: String(decoding: buffer, as: UTF8.self)))
    default: .bulk(Array(buffer))
    }
    return record(.value(reply), for: task)
}

private func recordArray(_ task: UnsafePointer<redisReadTask>?, _ count: Int32) -> UnsafeMutableRawPointer? {
    record(.arrayHeader(count: Int(count)), for: task)
}

private func recordInteger(_ task: UnsafePointer<redisReadTask>?, _ value: Int64) -> UnsafeMutableRawPointer? {
    record(.value(.integer(value)), for: task)
}

private func recordNil(_ task: UnsafePointer<redisReadTask>?) -> UnsafeMutableRawPointer? {
    record(.value(.null), for: task)
}
