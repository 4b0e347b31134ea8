import DecimalBytes

/// One Redis command: its name and arguments as bytes (binary-safe), kept in one contiguous buffer,
/// each argument after its length, so building a command costs one allocation however many
/// arguments it has (two commands are built per delivery).
///
/// Its description names the command and counts the arguments but never shows them, so an `AUTH`
/// command cannot leak a password into a log.
public struct RedisCommand: Sendable, CustomStringConvertible, CustomReflectable {
    /// Every argument, one after another: its length (four bytes, little-endian), then its bytes.
    @usableFromInline var storage: [UInt8] = []
    /// How many arguments ``storage`` holds, the name included.
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
    /// so that they are copied in once, without the buffers regrowing. Append the name first.
    public init(reservingBytes bytes: Int, arguments: Int) {
        storage.reserveCapacity(bytes + arguments * Self.lengthBytes)
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

    /// Appends a text argument (its UTF-8 bytes), lent in place and copied in whole behind their
    /// known length: the generic copy of a string's UTF-8 into the buffer took about 340
    /// instructions an argument (docs/BENCHMARKS.md).
    @inlinable
    public mutating func append(_ argument: String) {
        var argument = argument
        argument.withUTF8 { append(utf8: $0) }
    }

    /// Appends an argument whose bytes are known: its length, then the bytes, written together on
    /// the stack and appended at once (each append checks the buffer's capacity and uniqueness).
    @usableFromInline
    mutating func append(utf8 argument: UnsafeBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.lengthBytes + argument.count) { field in
            let length = UInt32(truncatingIfNeeded: argument.count).littleEndian
            UnsafeMutableRawPointer(field.baseAddress!).storeBytes(of: length, as: UInt32.self)
            if let bytes = argument.baseAddress { (field.baseAddress! + Self.lengthBytes).initialize(from: bytes, count: argument.count) }
            storage.append(contentsOf: UnsafeBufferPointer(field))
        }
        argumentCount += 1
    }

    /// Appends a binary argument, byte for byte.
    @inlinable
    public mutating func append(bytes argument: some Sequence<UInt8>) {
        append(writing: { $0.append(contentsOf: argument) })
    }

    /// Appends one argument whose bytes `write` appends to the buffer it is lent (it must only
    /// append): an encoder writes straight into the command, without an array of its own.
    @inlinable
    public mutating func append(writing write: (inout [UInt8]) -> Void) {
        // Room for the length first, written once the bytes are in.
        let start = storage.count
        withUnsafeBytes(of: UInt32(0)) { storage.append(contentsOf: $0) }
        write(&storage)
        let length = UInt32(truncatingIfNeeded: storage.count - start - Self.lengthBytes)
        storage.withUnsafeMutableBytes { $0.storeBytes(of: length.littleEndian, toByteOffset: start, as: UInt32.self) }
        argumentCount += 1
    }

    /// Appends an integer argument in decimal, without going through `String`.
    @inlinable
    public mutating func append(_ argument: Int) {
        withDecimal(Int64(argument)) { append(utf8: $0) }
    }

    /// The bytes each argument's length takes in ``storage``.
    @usableFromInline static var lengthBytes: Int { MemoryLayout<UInt32>.size }

    /// How many arguments, the command name included.
    public var count: Int {
        argumentCount
    }

    /// Calls `body` with where each argument's bytes lie in ``storage``, in order.
    func forEachArgument(_ body: (Range<Int>) -> Void) {
        var offset = 0
        while offset < storage.count {
            let start = offset + Self.lengthBytes
            let end = start + length(at: offset)
            body(start..<end)
            offset = end
        }
    }

    /// Where each argument's bytes lie in ``storage``, in order (0 is the name): one pass, for a
    /// reader of many arguments (``argument(_:)`` walks from the first each time).
    var argumentRanges: [Range<Int>] {
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(argumentCount)
        forEachArgument { ranges.append($0) }
        return ranges
    }

    /// The bytes at `range`, one of ``argumentRanges``.
    func bytes(in range: Range<Int>) -> ArraySlice<UInt8> {
        storage[range]
    }

    /// The bytes of argument `index` (0 is the name), one of the ``count``.
    func argument(_ index: Int) -> ArraySlice<UInt8> {
        precondition(index >= 0 && index < argumentCount, "a command of \(argumentCount) arguments has no argument \(index)")
        var offset = 0
        for _ in 0..<index { offset += Self.lengthBytes + length(at: offset) }
        let start = offset + Self.lengthBytes
        return storage[start..<start + length(at: offset)]
    }

    /// The length stored at `offset`, before an argument's bytes.
    private func length(at offset: Int) -> Int {
        storage.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
    }

    /// The command's name, as given; empty before one is appended.
    public var name: String {
        argumentCount == 0 ? "" : String(decoding: argument(0), as: UTF8.self)
    }

    public var description: String {
        "\(name) (\(count - 1) arguments)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "count": count])
    }
}
