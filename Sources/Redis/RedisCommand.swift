import DecimalBytes

/// One Redis command: its name and arguments as bytes (binary-safe), kept in one contiguous buffer
/// so building and encoding a command costs two allocations however many arguments it has.
///
/// Its description names the command and counts the arguments but never shows them, so an `AUTH`
/// command cannot leak a password into a log.
public struct RedisCommand: Sendable, CustomStringConvertible, CustomReflectable {
    /// Every argument's bytes, one after another.
    @usableFromInline var storage: [UInt8] = []
    /// Where each argument ends in ``storage``.
    @usableFromInline var argumentEnds: [Int] = []
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
    /// so that they are copied in once, without the buffers regrowing. Append the name first.
    public init(reservingBytes bytes: Int, arguments: Int) {
        storage.reserveCapacity(bytes)
        argumentEnds.reserveCapacity(arguments)
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
        storage.append(contentsOf: argument.utf8)
        argumentEnds.append(storage.count)
    }

    /// Appends a binary argument, byte for byte.
    @inlinable
    public mutating func append(bytes argument: some Sequence<UInt8>) {
        storage.append(contentsOf: argument)
        argumentEnds.append(storage.count)
    }

    /// Appends one argument whose bytes `write` appends to the buffer it is lent (it must only
    /// append): an encoder writes straight into the command, without an array of its own.
    @inlinable
    public mutating func append(writing write: (inout [UInt8]) -> Void) {
        write(&storage)
        argumentEnds.append(storage.count)
    }

    /// Appends an integer argument in decimal, without going through `String`.
    @inlinable
    public mutating func append(_ argument: Int) {
        storage.appendDecimal(Int64(argument))
        argumentEnds.append(storage.count)
    }

    /// How many arguments, the command name included.
    public var count: Int {
        argumentEnds.count
    }

    /// The bytes of argument `index` (0 is the name).
    func argument(_ index: Int) -> ArraySlice<UInt8> {
        storage[(index == 0 ? 0 : argumentEnds[index - 1])..<argumentEnds[index]]
    }

    /// The command's name, as given.
    public var name: String {
        String(decoding: storage[..<(argumentEnds.first ?? 0)], as: UTF8.self)
    }

    public var description: String {
        "\(name) (\(count - 1) arguments)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "count": count])
    }
}
