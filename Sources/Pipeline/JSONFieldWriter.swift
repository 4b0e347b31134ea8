import APNsCore
import DecimalBytes

/// Writes one JSON object field by field straight into the record's bytes, leaving absent optional
/// fields out: what a record's encoder needs, without building a `JSONObject` tree first (an outcome
/// event is written once per delivery, and the tree showed up in profiles). Keys are constants of
/// the schemas, plain ASCII, written as they are; values are escaped as APNsCore's `JSONWriter`
/// escapes them. It also writes text of other formats made of JSON values, such as a settled
/// claim's (``withWritten(capacity:_:_:)``: raw text and array elements, `null` for absent ones).
///
/// The fields are written through a pointer into the room the record's array was made with
/// (``record(capacity:_:)``): a record of twenty fields is about sixty pieces, and appending each
/// to an array asked whether the array was shared and had room, a call into the runtime per piece.
/// A record that outgrows its room goes on in an array of its own (``spilled``), so no size is
/// ever too large, only slower.
struct JSONFieldWriter: ~Copyable {
    /// The room the record is written into, and how much of it is written.
    private let room: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    /// The record once it outgrew ``room``: what was written, and everything after.
    private var spilled: [UInt8]?
    private var isEmpty = true

    private init(room: UnsafeMutableBufferPointer<UInt8>) {
        self.room = room
    }

    /// The object `fields` writes, closed.
    /// - Parameter capacity: the room the record's array is made with, so that a typical record (an
    ///   outcome event is about 600 bytes) is written without growing.
    static func record(capacity: Int = 1024, _ fields: (inout JSONFieldWriter) -> Void) -> [UInt8] {
        var spilled: [UInt8]?
        let written = [UInt8](unsafeUninitializedCapacity: capacity) { room, initialized in
            var writer = JSONFieldWriter(room: room)
            writer.write(UInt8(ascii: "{"))
            fields(&writer)
            writer.write(UInt8(ascii: "}"))
            spilled = writer.spilled
            initialized = spilled == nil ? writer.count : 0
        }
        return spilled ?? written
    }

    /// Writes what `write` writes (no braces: a text of the caller's format) into room on the
    /// stack, going on in an array of its own past `capacity` bytes, and lends the bytes to `body`:
    /// for text written into a buffer of the caller's, such as a Redis command's argument.
    static func withWritten<Result>(capacity: Int, _ write: (inout JSONFieldWriter) -> Void,
                                    _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { room in
            var writer = JSONFieldWriter(room: room)
            write(&writer)
            if let spilled = writer.spilled { return spilled.withUnsafeBufferPointer(body) }
            return body(UnsafeBufferPointer(rebasing: room[..<writer.count]))
        }
    }

    mutating func string(_ key: StaticString, _ value: (some JSONStringValue)?) {
        guard let value else { return }
        append(key)
        writeString(value)
    }

    mutating func integer(_ key: StaticString, _ value: Int64?) {
        guard let value else { return }
        append(key)
        writeInteger(value)
    }

    mutating func double(_ key: StaticString, _ value: Double?) {
        guard let value else { return }
        append(key)
        writeDouble(value)
    }

    mutating func bool(_ key: StaticString, _ value: Bool) {
        append(key)
        write(value ? "true" : "false")
    }

    /// A nested object, its fields written by `fields` into the same bytes.
    mutating func object(_ key: StaticString, _ fields: (inout JSONFieldWriter) -> Void) {
        append(key)
        write(UInt8(ascii: "{"))
        isEmpty = true
        fields(&self)
        write(UInt8(ascii: "}"))
        isEmpty = false
    }

    /// An array's `[`: its elements follow, a separator before each but the first.
    mutating func openArray() {
        write(UInt8(ascii: "["))
        isEmpty = true
    }

    /// An array's `]`.
    mutating func closeArray() {
        write(UInt8(ascii: "]"))
        isEmpty = false
    }

    /// An array element: the string, quoted and escaped, or `null`.
    mutating func element(_ value: (some JSONStringValue)?) {
        separate()
        if let value { writeString(value) } else { write("null") }
    }

    /// An array element: the integer, or `null`.
    mutating func element(_ value: Int64?) {
        separate()
        if let value { writeInteger(value) } else { write("null") }
    }

    /// An array element: the number (``JSONWriter/withDouble(_:_:)``), or `null`.
    mutating func element(_ value: Double?) {
        separate()
        if let value { writeDouble(value) } else { write("null") }
    }

    /// A constant of the caller's format, as it is: not quoted, not escaped.
    mutating func raw(literal text: StaticString) {
        write(text)
    }

    /// Text of the caller's format, as it is (a state's name): not quoted, not escaped.
    mutating func raw(_ text: String) {
        text.withJSONStringUTF8 { write($0) }
    }

    /// A string value, quoted and escaped.
    @inline(__always)
    private mutating func writeString(_ value: some JSONStringValue) {
        write(UInt8(ascii: "\""))
        value.withJSONStringUTF8 { text in JSONWriter.forEachEscapedPiece(of: text) { write($0) } }
        write(UInt8(ascii: "\""))
    }

    @inline(__always)
    private mutating func writeInteger(_ value: Int64) {
        withDecimal(value) { write($0) }
    }

    @inline(__always)
    private mutating func writeDouble(_ value: Double) {
        JSONWriter.withDouble(value) { write($0) }
    }

    /// The separator before a field or element but the first.
    @inline(__always)
    private mutating func separate() {
        if !isEmpty { write(UInt8(ascii: ",")) }
        isEmpty = false
    }

    /// The separator, then the quoted key and its colon.
    @inline(__always)
    private mutating func append(_ key: StaticString) {
        separate()
        write(UInt8(ascii: "\""))
        write(key)
        write(UInt8(ascii: "\""))
        write(UInt8(ascii: ":"))
    }

    @inline(__always)
    private mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    private mutating func write(_ byte: UInt8) {
        if spilled == nil, count < room.count {
            room[count] = byte
            count += 1
        } else {
            withUnsafePointer(to: byte) { spill(UnsafeBufferPointer(start: $0, count: 1)) }
        }
    }

    @inline(__always)
    private mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if spilled == nil, bytes.count <= room.count - count {
            (room.baseAddress! + count).initialize(from: source, count: bytes.count)
            count += bytes.count
            return
        }
        spill(bytes)
    }

    /// Outgrown: the record goes on in an array of its own, what the room holds copied first.
    @inline(never)
    private mutating func spill(_ bytes: UnsafeBufferPointer<UInt8>) {
        if spilled == nil {
            var grown: [UInt8] = []
            grown.reserveCapacity(2 * room.count + bytes.count)
            grown.append(contentsOf: room[..<count])
            spilled = grown
        }
        spilled!.append(contentsOf: bytes)
    }
}
