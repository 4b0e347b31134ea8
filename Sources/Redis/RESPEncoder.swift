import DecimalBytes

/// Encodes commands to RESP2: `*<count>` CRLF, then per argument `$<length>` CRLF, its bytes and
/// CRLF (binary-safe: lengths, not terminators), appended straight to the connection's output.
/// ``RedisCommand`` holds its arguments in that form already: only the count header is written here.
///
/// Written in Swift rather than with hiredis's `redisFormatCommandArgv`, which formats every length
/// header with `sprintf` into a buffer it allocates per command: with two commands per delivery,
/// that was about 1.5% of the worker's CPU (docs/BENCHMARKS.md, "Fourth round: deduplication in
/// Redis"). hiredis still decodes replies (``RESPReader``).
enum RESPEncoder {
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")

    /// Appends `command`, encoded: its count header, then its arguments, encoded as they were added.
    static func encode(_ command: RedisCommand, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "*"))
        output.appendDecimal(Int64(command.count))
        output.append(carriageReturn)
        output.append(lineFeed)
        output.append(contentsOf: command.encodedArguments)
    }
}
