/// Header fields packed into one byte array: built once where a request is made, then lent to the
/// HTTP/2 encoder as pointers into that array — no `String` and no array per field on the way out.
///
/// Each field is stored as a flags byte, the name's and the value's lengths (four bytes each,
/// little-endian), then the name and the value. Names must already be lower case.
public struct HTTPFieldBlock: Sendable, Equatable {
    /// How the HPACK encoder may remember a field.
    public enum Indexing: UInt8, Sendable {
        /// It may enter the connection's header table (values sent again and again).
        case allowed = 0
        /// Sent as a literal that is never indexed: values unique to one request (an id) would only
        /// push the fields that repeat (path, topic, push type) out of the table.
        case never = 1
    }

    @usableFromInline var bytes: [UInt8] = []
    @usableFromInline var fieldCount = 0

    /// How many fields the block holds.
    public var count: Int { fieldCount }

    public init() {}

    /// An empty block with room for `byteCount` bytes of fields (each field takes nine bytes more
    /// than its name and value), so building it does not reallocate.
    public init(reservingCapacity byteCount: Int) {
        bytes.reserveCapacity(byteCount)
    }

    /// A block of `fields`, every one of them indexable.
    public init(_ fields: [HTTPField]) {
        for field in fields { append(field.name, field.value) }
    }

    /// Appends one field.
    @inlinable
    public mutating func append(_ name: String, _ value: String, indexing: Indexing = .allowed) {
        value.withContiguousUTF8 { append(name, bytes: $0, indexing: indexing) }
    }

    /// Appends one field whose value is already bytes (such as an id written on the stack).
    @inlinable
    public mutating func append(_ name: String, bytes value: UnsafeBufferPointer<UInt8>, indexing: Indexing = .allowed) {
        name.withContiguousUTF8 { append(name: $0, value: value, indexing: indexing) }
    }

    /// Appends one field from bytes.
    @inlinable
    public mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, indexing: Indexing = .allowed) {
        // The field is written whole on the stack and appended at once: each append checks the
        // array's capacity and uniqueness, about 80 instructions (docs/BENCHMARKS.md).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9 + name.count + value.count) { field in
            field[0] = indexing.rawValue
            Self.storeLength(name.count, into: field, at: 1)
            Self.storeLength(value.count, into: field, at: 5)
            if let source = name.baseAddress { (field.baseAddress! + 9).initialize(from: source, count: name.count) }
            if let source = value.baseAddress { (field.baseAddress! + 9 + name.count).initialize(from: source, count: value.count) }
            bytes.append(contentsOf: UnsafeBufferPointer(field))
        }
        fieldCount += 1
    }

    /// The fields as `HTTPField`s, pseudo-headers (names starting with `:`) left out: for readers
    /// that want the regular fields as text, made when asked for.
    public var regularFields: [HTTPField] {
        var fields: [HTTPField] = []
        withUnsafeFields { block in
            for field in block where field.name.first != UInt8(ascii: ":") {
                fields.append(HTTPField(String(decoding: field.name, as: UTF8.self), String(decoding: field.value, as: UTF8.self)))
            }
        }
        return fields
    }

    /// Lends the fields as pointers into the block, valid for the whole of `body` (so an encoder
    /// can hold every field of a request at once).
    @inlinable
    public func withUnsafeFields<Result, Failure: Error>(_ body: (UnsafeFields) throws(Failure) -> Result) throws(Failure) -> Result {
        try bytes.withUnsafeBufferPointer { (block) throws(Failure) -> Result in try body(UnsafeFields(block: block)) }
    }

    /// Lends the bytes of the first value of a field by name (nil when no field has it), read in
    /// place.
    @inlinable
    public func withFirstValue<Result>(named name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Result) -> Result {
        // Byte by byte through both buffers, lengths first: a generic comparison of the buffer with
        // the name's UTF-8 view cost some 450 instructions a lookup, two per APNs answer.
        var name = name
        return name.withUTF8 { name in
            withUnsafeFields { fields in
                body(fields.first { field in
                    field.name.count == name.count && name.indices.allSatisfy { field.name[$0] == name[$0] }
                }?.value)
            }
        }
    }

    /// Empties the block and keeps its storage, so a block filled again and again (a server
    /// stream's received fields) allocates only when it grows.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        fieldCount = 0
    }

    /// Calls `body` with each field's name, read in place, and where its value lies in the block:
    /// a reader that looks up a few names once can keep the ranges and read the values later
    /// (``withValue(in:_:)``, ``value(in:)``) without another search.
    @inlinable
    public func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Void) {
        bytes.withUnsafeBufferPointer { block in
            var offset = 0
            while offset < block.count {
                let field = Self.field(in: block, at: offset)
                body(UnsafeBufferPointer(rebasing: block[field.name]), field.value)
                offset = field.value.upperBound
            }
        }
    }

    /// Lends the bytes of the value at `range` (from ``forEachField(_:)``).
    @inlinable
    public func withValue<Result>(in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The value at `range` (from ``forEachField(_:)``) as text.
    public func value(in range: Range<Int>) -> String {
        withValue(in: range) { String(decoding: $0, as: UTF8.self) }
    }

    /// The fields of a block, read in place.
    public struct UnsafeFields: Sequence {
        @usableFromInline let block: UnsafeBufferPointer<UInt8>

        @inlinable init(block: UnsafeBufferPointer<UInt8>) {
            self.block = block
        }

        public struct Iterator: IteratorProtocol {
            @usableFromInline let block: UnsafeBufferPointer<UInt8>
            @usableFromInline var offset = 0

            @inlinable init(block: UnsafeBufferPointer<UInt8>) {
                self.block = block
            }

            @inlinable
            public mutating func next() -> (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, indexing: Indexing)? {
                guard offset < block.count else { return nil }
                let indexing = Indexing(rawValue: block[offset]) ?? .allowed
                let field = HTTPFieldBlock.field(in: block, at: offset)
                offset = field.value.upperBound
                return (UnsafeBufferPointer(rebasing: block[field.name]), UnsafeBufferPointer(rebasing: block[field.value]), indexing)
            }
        }

        @inlinable public func makeIterator() -> Iterator { Iterator(block: block) }
    }

    @inlinable
    static func storeLength(_ length: Int, into header: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        let length = UInt32(truncatingIfNeeded: length)
        for index in 0..<4 { header[offset + index] = UInt8(truncatingIfNeeded: length >> UInt32(8 * index)) }
    }

    /// Where the name and the value of the field stored at `offset` lie in `block`: after the flags
    /// byte and the two lengths.
    @inlinable
    static func field(in block: UnsafeBufferPointer<UInt8>, at offset: Int) -> (name: Range<Int>, value: Range<Int>) {
        let nameStart = offset + 9
        let valueStart = nameStart + length(in: block, at: offset + 1)
        return (nameStart..<valueStart, valueStart..<valueStart + length(in: block, at: offset + 5))
    }

    @inlinable
    static func length(in block: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        Int(UInt32(littleEndian: UnsafeRawPointer(block.baseAddress! + offset).loadUnaligned(as: UInt32.self)))
    }
}
