import DecimalBytes

/// One Redis command: its name and arguments as bytes (binary-safe), kept in one buffer already in
/// RESP (per argument `$<length>` CRLF, its bytes, CRLF), so building a command costs one allocation
/// however many arguments it has, and encoding it is a count header and one copy (``RESPEncoder``).
///
/// Its description names the command and counts the arguments but never shows them, so an `AUTH`
/// command cannot leak a password into a log.
public struct RedisCommand: Sendable, CustomStringConvertible, CustomReflectable {
    /// Every argument RESP-encoded, one after another.
    @usableFromInline var encodedArguments: [UInt8] = []
    /// How many arguments, the command name included.
    @usableFromInline var argumentCount = 0
    /// The script an `EVALSHA` command runs, so a `NOSCRIPT` reply can load it and retry.
    private(set) var script: RedisScript?

    /// A command from its name and text arguments, for example `RedisCommand("SET", "key", "value")`.
    public init(_ name: String, _ arguments: String...) {
        self.init(name, arguments)
    }

    /// A command from its name and text arguments.
    public init(_ name: String, _ arguments: [String]) {
        self.init(reservingBytes: arguments.reduce(name.utf8.count) { $0 + $1.utf8.count }, arguments: arguments.count + 1)
        append(name)
        for argument in arguments { append(argument) }
    }

    /// An empty command with room for `bytes` bytes of `arguments` arguments (the name included),
    /// so that they are copied in once, without the buffer regrowing. Append the name first.
    public init(reservingBytes bytes: Int, arguments: Int) {
        // Each argument's `$`, length (up to three digits) and two CRLFs.
        encodedArguments.reserveCapacity(bytes + 8 * arguments)
    }

    /// `EVALSHA sha numkeys key… arg…` for `script`; the connection loads the script and retries
    /// when the server answers `NOSCRIPT`.
    public static func evalSHA(_ script: RedisScript, keys: [String] = [], arguments: [String] = []) -> RedisCommand {
        let name = "EVALSHA"
        // The key count takes at most 20 digits.
        let bytes = name.utf8.count + script.sha1.utf8.count + 20
            + keys.reduce(0) { $0 + $1.utf8.count } + arguments.reduce(0) { $0 + $1.utf8.count }
        var command = RedisCommand(reservingBytes: bytes, arguments: 3 + keys.count + arguments.count)
        command.append(name)
        command.append(script.sha1)
        command.append(keys.count)
        for key in keys { command.append(key) }
        for argument in arguments { command.append(argument) }
        command.script = script
        return command
    }

    /// Appends a text argument (its UTF-8 bytes).
    @inlinable
    public mutating func append(_ argument: String) {
        encodedArguments.append(UInt8(ascii: "$"))
        encodedArguments.appendDecimal(Int64(argument.utf8.count))
        appendLineEnd()
        encodedArguments.append(contentsOf: argument.utf8)
        appendLineEnd()
        argumentCount += 1
    }

    /// Appends a binary argument, byte for byte.
    @inlinable
    public mutating func append(bytes argument: some Sequence<UInt8>) {
        append { $0.append(contentsOf: argument) }
    }

    /// Appends one argument whose bytes `write` appends to the buffer it is lent (it must only
    /// append): an encoder writes straight into the command, without an array of its own. The
    /// bytes then move up by the size of their length header, written in front of them.
    @inlinable
    public mutating func append(writing write: (inout [UInt8]) -> Void) {
        let start = encodedArguments.count
        write(&encodedArguments)
        let length = encodedArguments.count - start
        var digits = 1
        var rest = length / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let headerSize = digits + 3
        encodedArguments.append(contentsOf: repeatElement(0, count: headerSize))
        encodedArguments.withUnsafeMutableBufferPointer { buffer in
            let header = buffer.baseAddress! + start
            // The regions overlap: `copyMemory` moves like `memmove`.
            UnsafeMutableRawPointer(header + headerSize).copyMemory(from: header, byteCount: length)
            header[0] = UInt8(ascii: "$")
            var value = length
            for index in stride(from: digits, through: 1, by: -1) {
                header[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            header[digits + 1] = UInt8(ascii: "\r")
            header[digits + 2] = UInt8(ascii: "\n")
        }
        appendLineEnd()
        argumentCount += 1
    }

    /// Appends an integer argument in decimal, without going through `String`.
    @inlinable
    public mutating func append(_ argument: Int) {
        append { $0.appendDecimal(Int64(argument)) }
    }

    @usableFromInline
    mutating func appendLineEnd() {
        encodedArguments.append(UInt8(ascii: "\r"))
        encodedArguments.append(UInt8(ascii: "\n"))
    }

    /// The bytes of argument `index` (0 is the name), found through the length headers.
    func argument(_ index: Int) -> ArraySlice<UInt8> {
        var position = 0
        for argument in 0...index {
            // Past `$`, the length's digits up to CR.
            var length = 0
            position += 1
            while encodedArguments[position] != UInt8(ascii: "\r") {
                length = length * 10 + Int(encodedArguments[position] - UInt8(ascii: "0"))
                position += 1
            }
            position += 2
            if argument == index { return encodedArguments[position..<(position + length)] }
            position += length + 2
        }
        preconditionFailure("unreachable: the loop returns at `index`")
    }

    /// How many arguments, the command name included.
    public var count: Int {
        argumentCount
    }

    /// The command's name, as given.
    public var name: String {
        count == 0 ? "" : String(decoding: argument(0), as: UTF8.self)
    }

    public var description: String {
        "\(name) (\(count - 1) arguments)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "count": count])
    }
}
