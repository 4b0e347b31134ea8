import DecimalBytes

/// Appends JSON text to a byte buffer: strings escaped per RFC 8259, so that no value can close a
/// string early, add keys or break the document, whatever characters it holds.
public enum JSONWriter {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `string` as a quoted JSON string. Non-ASCII characters are written as raw UTF-8.
    public static func appendString(_ string: String, to buffer: inout [UInt8]) {
        string.withJSONStringUTF8 { appendString(utf8: $0, to: &buffer) }
    }

    /// Appends the text `utf8` as a quoted JSON string, escaped where JSON requires.
    public static func appendString(utf8: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        forEachEscapedPiece(of: utf8) { buffer.append(contentsOf: $0) }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Hands `utf8` to `piece` escaped for a JSON string, unquoted, in order: the text whole when
    /// nothing in it needs escaping (most strings), else its runs without escapes and each escape
    /// sequence between them. The one escaper of JSON text, for writers of any kind of buffer.
    public static func forEachEscapedPiece(of utf8: UnsafeBufferPointer<UInt8>, _ piece: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard needsEscaping(utf8) else { return piece(utf8) }
        var runStart = 0
        for (offset, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            if runStart < offset { piece(UnsafeBufferPointer(rebasing: utf8[runStart..<offset])) }
            runStart = offset + 1
            // `\"`, `\\`, `\n`, `\r`, `\t`, or `\u00XX` for the other control characters, on the stack.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { escape in
                escape[0] = UInt8(ascii: "\\")
                let short: UInt8? = switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
                case 0x0A: UInt8(ascii: "n")
                case 0x0D: UInt8(ascii: "r")
                case 0x09: UInt8(ascii: "t")
                default: nil
                }
                if let short {
                    escape[1] = short
                    return piece(UnsafeBufferPointer(rebasing: escape[..<2]))
                }
                escape[1] = UInt8(ascii: "u")
                escape[2] = UInt8(ascii: "0")
                escape[3] = UInt8(ascii: "0")
                escape[4] = hexDigits[Int(byte >> 4)]
                escape[5] = hexDigits[Int(byte & 0x0F)]
                piece(UnsafeBufferPointer(escape))
            }
        }
        if runStart < utf8.count { piece(UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// Whether any byte is a control character, `"` or `\\`. Eight bytes at a time: each word is
    /// tested for all three with a few arithmetic operations instead of three comparisons and a
    /// branch per byte (outcome records and payloads write a dozen strings each, tokens and ids of
    /// 36–64 bytes among them).
    static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return false }
        let count = utf8.count
        var offset = 0
        while offset + 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
            if hasEscapedByte(word) { return true }
            offset += 8
        }
        while offset < count {
            let byte = base[offset]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            offset += 1
        }
        return false
    }

    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether one of the eight bytes of `word` is below 0x20, `"` (0x22) or `\\` (0x5C): the
    /// classic test for a byte below n, `(x - n·lowBits) & ~x & highBits`, which is exact about
    /// whether any byte matches (a borrow only ever follows a byte that matched already); a byte
    /// equal to c is one whose XOR with c is below 1.
    private static func hasEscapedByte(_ word: UInt64) -> Bool {
        func hasByteBelow(_ word: UInt64, _ bound: UInt64) -> Bool {
            (word &- bound &* lowBits) & ~word & highBits != 0
        }
        return hasByteBelow(word, 0x20)
            || hasByteBelow(word ^ (0x22 &* lowBits), 1)
            || hasByteBelow(word ^ (0x5C &* lowBits), 1)
    }

    /// Appends any JSON value. Non-finite doubles, which JSON cannot express, are written as `null`;
    /// the validator then reports the key's wrong type.
    public static func appendValue(_ value: JSONValue, to buffer: inout [UInt8]) {
        // The array lent to the sink and taken back (a swap moves its storage, copying nothing).
        var sink = ByteArraySink()
        swap(&sink.bytes, &buffer)
        write(value, to: &sink)
        swap(&sink.bytes, &buffer)
    }

    /// Writes any JSON value to `sink`, as ``appendValue(_:to:)`` appends it to an array: for
    /// writers of another kind of buffer. Inlinable, so that it is specialized for the caller's sink.
    @inlinable
    public static func write(_ value: JSONValue, to sink: inout some JSONSink) {
        switch value {
        case .null: sink.write("null")
        case .bool(let flag): sink.write(flag ? "true" : "false")
        case .integer(let number): withDecimal(number) { sink.write($0) }
        case .double(let number): withDouble(number) { sink.write($0) }
        case .string(let text): writeString(text, to: &sink)
        case .array(let elements):
            sink.write(byte: UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { sink.write(byte: UInt8(ascii: ",")) }
                write(elements[index], to: &sink)
            }
            sink.write(byte: UInt8(ascii: "]"))
        case .object(let object):
            sink.write(byte: UInt8(ascii: "{"))
            for index in object.members.indices {
                if index > 0 { sink.write(byte: UInt8(ascii: ",")) }
                writeString(object.members[index].key, to: &sink)
                sink.write(byte: UInt8(ascii: ":"))
                write(object.members[index].value, to: &sink)
            }
            sink.write(byte: UInt8(ascii: "}"))
        }
    }

    /// Writes `string` to `sink` as a quoted JSON string, escaped where JSON requires.
    @inlinable
    static func writeString(_ string: String, to sink: inout some JSONSink) {
        sink.write(byte: UInt8(ascii: "\""))
        string.withJSONStringUTF8 { utf8 in forEachEscapedPiece(of: utf8) { sink.write($0) } }
        sink.write(byte: UInt8(ascii: "\""))
    }

    /// Appends `number` in decimal, as `String(number)` writes it.
    public static func appendInteger(_ number: Int64, to buffer: inout [UInt8]) {
        buffer.appendDecimal(number)
    }

    /// Appends `number` as JSON (``withDouble(_:_:)``).
    public static func appendDouble(_ number: Double, to buffer: inout [UInt8]) {
        withDouble(number) { buffer.append(contentsOf: $0) }
    }

    /// Lends `number` as JSON text, valid only inside `body`: Swift's shortest round-trip form
    /// ("0.5", "1e-05", "25.0"), valid JSON for finite values; `null` for the others, which JSON
    /// cannot express (a validator then reports the key's wrong type). Inlinable: specialized in
    /// the caller, the stack's bytes need no generic type made at run time.
    @inlinable
    public static func withDouble<Result>(_ number: Double, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard number.isFinite else {
            let null: StaticString = "null"
            return body(UnsafeBufferPointer(start: null.utf8Start, count: null.utf8CodeUnitCount))
        }
        if let millionths = wholeMillionths(of: number) {
            // A sign and at most nine whole digits (below 2^29) before the point, six digits after it.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 17) { digits in
                body(writeMillionths(millionths, negative: number < 0, into: digits))
            }
        }
        var text = number.description
        return text.withUTF8(body)
    }

    /// The magnitude of `number` in millionths, when it is a whole number of millionths and lies in
    /// 0.0001 ..< 2^29, else nil. There Swift's shortest form is these millionths written out with
    /// their trailing zeros cut: the decimal round-trips, and no shorter one can, since two
    /// millionths lie further apart than the number's whole rounding interval (its ulp is below
    /// 2^-23); and Swift writes such numbers without an exponent. Every latency in milliseconds
    /// taken from nanoseconds, from 100 ns to about 6 days, is one (an outcome's `latency_ms`, two
    /// per delivery), written so without making a `String`.
    @usableFromInline
    static func wholeMillionths(of number: Double) -> UInt64? {
        let magnitude = number.magnitude
        guard magnitude >= 0.0001, magnitude < 536_870_912 else { return nil }
        let millionths = (magnitude * 1_000_000).rounded()
        guard millionths / 1_000_000 == magnitude else { return nil }
        return UInt64(millionths)
    }

    /// Writes `millionths` / 10^6 as Swift writes a `Double` into `digits` (17 bytes) and returns
    /// the text: the whole part, a point, and the fraction's digits without trailing zeros
    /// but at least one ("25.0", "0.0001", "12.345678").
    @usableFromInline
    static func writeMillionths(_ millionths: UInt64, negative: Bool,
                                into digits: UnsafeMutableBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let point = 10
        var fraction = millionths % 1_000_000
        var fractionDigits = 6
        while fractionDigits > 1, fraction % 10 == 0 {
            fraction /= 10
            fractionDigits -= 1
        }
        let end = point + 1 + fractionDigits
        for index in stride(from: end - 1, to: point, by: -1) {
            digits[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
        digits[point] = UInt8(ascii: ".")
        var first = withDecimal(Int64(millionths / 1_000_000)) { whole in
            let first = point - whole.count
            (digits.baseAddress! + first).initialize(from: whole.baseAddress!, count: whole.count)
            return first
        }
        if negative {
            first -= 1
            digits[first] = UInt8(ascii: "-")
        }
        return UnsafeBufferPointer(start: digits.baseAddress! + first, count: end - first)
    }
}

/// Where ``JSONWriter/write(_:to:)`` writes JSON text: pieces of bytes, and single bytes (the
/// punctuation), which a byte array takes without the cost of a piece.
public protocol JSONSink {
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
    mutating func write(byte: UInt8)
}

extension JSONSink {
    /// A constant of JSON's (`null`, `true`, `false`).
    @inlinable
    mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

/// A byte array as a ``JSONSink``: what ``JSONWriter/appendValue(_:to:)`` appends to.
private struct ByteArraySink: JSONSink {
    var bytes: [UInt8] = []

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes.append(contentsOf: bytes)
    }

    mutating func write(byte: UInt8) {
        bytes.append(byte)
    }
}
