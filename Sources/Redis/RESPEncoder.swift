import DecimalBytes

/// Encodes commands to RESP2: `*<count>` CRLF, then per argument `$<length>` CRLF, its bytes and
/// CRLF (binary-safe: lengths, not terminators), appended straight to the connection's output.
///
/// Written in Swift rather than with hiredis's `redisFormatCommandArgv`, which formats every length
/// header with `sprintf` into a buffer it allocates per command: with two commands per delivery,
/// that was about 1.5% of the worker's CPU (docs/BENCHMARKS.md, "Fourth round: deduplication in
/// Redis"). hiredis still decodes replies (``RESPReader``).
enum RESPEncoder {
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")

    /// Appends `command`, encoded, to `output`: sized first, written through a pointer into room
    /// on the stack (the heap for a large command), then appended whole. (It was appended piece by
    /// piece, seven pieces an argument, each asking whether the array was shared and had room.)
    static func encode(_ command: RedisCommand, into output: inout [UInt8]) {
        command.storage.withUnsafeBufferPointer { storage in
            var size = headerSize(command.count)
            command.forEachArgument { size += headerSize($0.count) + $0.count + 2 }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { room in
                var next = room.baseAddress!
                writeHeader(UInt8(ascii: "*"), command.count, at: &next)
                command.forEachArgument { argument in
                    writeHeader(UInt8(ascii: "$"), argument.count, at: &next)
                    if let bytes = storage.baseAddress { next.initialize(from: bytes + argument.lowerBound, count: argument.count) }
                    next += argument.count
                    writeLineEnd(at: &next)
                }
                precondition(next == room.baseAddress! + size, "a RESP command written to other than its size")
                output.append(contentsOf: UnsafeBufferPointer(room))
            }
        }
    }

    /// The bytes of a header: its marker, the value in decimal, CRLF.
    private static func headerSize(_ value: Int) -> Int {
        1 + decimalCount(Int64(value)) + 2
    }

    /// Writes `marker`, `value` in decimal and CRLF at `next`, and moves past them.
    private static func writeHeader(_ marker: UInt8, _ value: Int, at next: inout UnsafeMutablePointer<UInt8>) {
        next.initialize(to: marker)
        next += 1
        withDecimal(Int64(value)) { digits in
            // Byte by byte: a length has a few digits, fewer bytes than a call to `memcpy` costs
            // instructions (seven headers a command).
            for digit in digits {
                next.initialize(to: digit)
                next += 1
            }
        }
        writeLineEnd(at: &next)
    }

    private static func writeLineEnd(at next: inout UnsafeMutablePointer<UInt8>) {
        next[0] = carriageReturn
        next[1] = lineFeed
        next += 2
    }
}
