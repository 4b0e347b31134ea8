import APNsCore

/// Writes one JSON object field by field straight into bytes, leaving absent optional fields out:
/// what a record's encoder needs, without building a `JSONObject` tree first (an outcome event is
/// written once per delivery, and the tree showed up in profiles). Keys are constants of the
/// schemas, plain ASCII, written as they are; values go through APNsCore's `JSONWriter`.
struct JSONFieldWriter {
    private var bytes: [UInt8] = []
    private var isEmpty = true

    /// - Parameter capacity: room reserved up front, so that a typical record (an outcome event is
    ///   about 600 bytes) is written without the array growing.
    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    mutating func string(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        append(key)
        JSONWriter.appendString(value, to: &bytes)
    }

    mutating func integer(_ key: StaticString, _ value: Int64?) {
        guard let value else { return }
        append(key)
        JSONWriter.appendInteger(value, to: &bytes)
    }

    mutating func double(_ key: StaticString, _ value: Double?) {
        guard let value else { return }
        append(key)
        JSONWriter.appendDouble(value, to: &bytes)
    }

    mutating func bool(_ key: StaticString, _ value: Bool) {
        append(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A nested object, its fields written by `fields` into the same bytes.
    mutating func object(_ key: StaticString, _ fields: (inout JSONFieldWriter) -> Void) {
        append(key)
        bytes.append(UInt8(ascii: "{"))
        isEmpty = true
        fields(&self)
        bytes.append(UInt8(ascii: "}"))
        isEmpty = false
    }

    /// The object, closed. (Mutating rather than consuming: closing a consumed copy made the
    /// buffer shared at the last append, which copied the whole record.)
    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// The separator, the quoted key and its colon in one append: a byte at a time, each append
    /// asked whether the buffer was shared (a call into the runtime), five times per field.
    private mutating func append(_ key: StaticString) {
        let separator = isEmpty ? 0 : 1
        isEmpty = false
        key.withUTF8Buffer { name in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: separator + name.count + 3) { field in
                if separator == 1 { field[0] = UInt8(ascii: ",") }
                field[separator] = UInt8(ascii: "\"")
                _ = UnsafeMutableBufferPointer(rebasing: field[(separator + 1)...]).initialize(fromContentsOf: name)
                field[separator + name.count + 1] = UInt8(ascii: "\"")
                field[separator + name.count + 2] = UInt8(ascii: ":")
                bytes.append(contentsOf: field)
            }
        }
    }
}
