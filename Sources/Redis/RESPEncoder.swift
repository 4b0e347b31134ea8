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

    /// Appends `command`, encoded, to `output`.
    static func encode(_ command: RedisCommand, into output: inout [UInt8]) {
        appendHeader(UInt8(ascii: "*"), command.count, to: &output)
        command.storage.withUnsafeBufferPointer { storage in
            command.forEachArgument { argument in
                appendHeader(UInt8(ascii: "$"), argument.count, to: &output)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: storage[argument]))
                output.append(carriageReturn)
                output.append(lineFeed)
            }
        }
    }

    /// Appends `marker`, `value` in decimal and CRLF.
    private static func appendHeader(_ marker: UInt8, _ value: Int, to output: inout [UInt8]) {
        output.append(marker)
        output.appendDecimal(Int64(value))
        output.append(carriageReturn)
        output.append(lineFeed)
    }
}
