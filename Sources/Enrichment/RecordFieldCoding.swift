/// Fields written one after another, each after its length: how a planned delivery is kept for
/// later (a release record, docs/policies.md) and read back without parsing JSON. A length is four
/// bytes, big-endian; `0xFFFFFFFF` stands for an absent field. Numbers are eight bytes,
/// big-endian, two's complement; flags one byte.
public struct RecordFieldWriter {
    /// Everything written so far.
    public private(set) var bytes: [UInt8]

    /// A writer that appends to `bytes` (a record's header, say), with room for `capacity` bytes in all.
    public init(appendingTo bytes: [UInt8], reservingCapacity capacity: Int = 0) {
        self.bytes = bytes
        self.bytes.reserveCapacity(capacity)
    }

    /// A field of bytes.
    public mutating func append(_ field: some Collection<UInt8>) {
        appendLength(UInt32(field.count))
        bytes.append(contentsOf: field)
    }

    /// A field of bytes, or an absent one.
    public mutating func append(_ field: [UInt8]?) {
        guard let field else { return appendLength(RecordFieldReader.absent) }
        append(field)
    }

    /// A field of UTF-8 text, or an absent one.
    public mutating func append(_ text: String?) {
        guard let text else { return appendLength(RecordFieldReader.absent) }
        append(text.utf8)
    }

    /// A number field, or an absent one.
    public mutating func append(_ number: Int64?) {
        guard let number else { return appendLength(RecordFieldReader.absent) }
        appendLength(8)
        withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A flag field.
    public mutating func append(_ flag: Bool) {
        appendLength(1)
        bytes.append(flag ? 1 : 0)
    }

    private mutating func appendLength(_ length: UInt32) {
        withUnsafeBytes(of: length.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

/// Reads what a ``RecordFieldWriter`` wrote, in the same order; each read throws
/// ``RecordFieldError`` when the bytes end early or a field is not of the kind asked for.
public struct RecordFieldReader {
    static let absent = UInt32.max

    private let record: [UInt8]
    private var position: Int

    /// Reads `bytes` from `start`.
    public init(_ bytes: [UInt8], from start: Int) {
        record = bytes
        position = start
    }

    /// Whether every field has been read.
    public var isAtEnd: Bool { position == record.count }

    /// The next field's bytes; nil when absent.
    public mutating func bytesIfPresent() throws(RecordFieldError) -> ArraySlice<UInt8>? {
        guard record.count - position >= 4 else { throw RecordFieldError() }
        let length = record[position..<position + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        position += 4
        guard length != Self.absent else { return nil }
        guard record.count - position >= Int(length) else { throw RecordFieldError() }
        defer { position += Int(length) }
        return record[position..<position + Int(length)]
    }

    /// The next field's bytes, which must be present.
    public mutating func bytes() throws(RecordFieldError) -> ArraySlice<UInt8> {
        guard let field = try bytesIfPresent() else { throw RecordFieldError() }
        return field
    }

    /// The next field as text (invalid UTF-8 replaced); nil when absent.
    public mutating func stringIfPresent() throws(RecordFieldError) -> String? {
        try bytesIfPresent().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The next field as text, which must be present.
    public mutating func string() throws(RecordFieldError) -> String {
        String(decoding: try bytes(), as: UTF8.self)
    }

    /// The next field as a number; nil when absent.
    public mutating func numberIfPresent() throws(RecordFieldError) -> Int64? {
        guard let field = try bytesIfPresent() else { return nil }
        guard field.count == 8 else { throw RecordFieldError() }
        return Int64(bitPattern: field.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// The next field as a number, which must be present.
    public mutating func number() throws(RecordFieldError) -> Int64 {
        guard let number = try numberIfPresent() else { throw RecordFieldError() }
        return number
    }

    /// The next field as a flag, which must be present.
    public mutating func flag() throws(RecordFieldError) -> Bool {
        let field = try bytes()
        guard field.count == 1, let byte = field.first, byte <= 1 else { throw RecordFieldError() }
        return byte == 1
    }

    /// A value of a closed set (a push type, a priority) read from its field, which must name one.
    public mutating func value<Value>(_ make: (String) -> Value?) throws(RecordFieldError) -> Value {
        guard let value = make(try string()) else { throw RecordFieldError() }
        return value
    }

    /// ``value(_:)`` for a field that may be absent.
    public mutating func valueIfPresent<Value>(_ make: (String) -> Value?) throws(RecordFieldError) -> Value? {
        guard let text = try stringIfPresent() else { return nil }
        guard let value = make(text) else { throw RecordFieldError() }
        return value
    }
}

/// Bytes that are not the fields a ``RecordFieldReader`` was asked for: cut short, or a value
/// outside its set.
public struct RecordFieldError: Error, Sendable {}
