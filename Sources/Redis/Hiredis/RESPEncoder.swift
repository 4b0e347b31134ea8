internal import CHiredis

/// Encodes commands to RESP with hiredis's `redisFormatCommandArgv` (binary-safe: lengths, not
/// NUL-terminated strings). Owns the `argv`/`argvlen` arrays it lends to hiredis and reuses them.
/// Confined to its connection's thread.
final class RESPEncoder {
    private var capacity = 0
    private var argumentPointers: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private var argumentLengths: UnsafeMutablePointer<Int>
    /// Stands in for the bytes of a command whose arguments are all empty (an empty array has no address).
    private let emptyArgument = UnsafeMutablePointer<CChar>.allocate(capacity: 1)

    init() {
        capacity = 16
        argumentPointers = .allocate(capacity: capacity)
        argumentLengths = .allocate(capacity: capacity)
    }

    deinit {
        argumentPointers.deallocate()
        argumentLengths.deallocate()
        emptyArgument.deallocate()
    }

    /// Appends `command`, encoded, to `output`.
    func encode(_ command: RedisCommand, into output: inout [UInt8]) {
        reserve(command.count)
        command.storage.withUnsafeBufferPointer { storage in
            let base = storage.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) } ?? UnsafePointer(emptyArgument)
            var start = 0
            for (index, end) in command.argumentEnds.enumerated() {
                argumentPointers[index] = base + start
                argumentLengths[index] = end - start
                start = end
            }
            var encoded: UnsafeMutablePointer<CChar>?
            let length = redisFormatCommandArgv(&encoded, Int32(command.count), argumentPointers, argumentLengths)
            // hiredis fails only when malloc does; there is nothing sensible to send then.
            guard length > 0, let encoded else { fatalError("redisFormatCommandArgv could not allocate \(command)") }
            output.append(contentsOf: UnsafeRawBufferPointer(start: encoded, count: Int(length)))
            redisFreeCommand(encoded)
        }
    }

    private func reserve(_ count: Int) {
        guard count > capacity else { return }
        argumentPointers.deallocate()
        argumentLengths.deallocate()
        capacity = max(count, capacity * 2)
        argumentPointers = .allocate(capacity: capacity)
        argumentLengths = .allocate(capacity: capacity)
    }
}
