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
        // Most strings need no escaping: copy them whole.
        guard needsEscaping(utf8) else {
            buffer.append(contentsOf: utf8)
            buffer.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                buffer.append(contentsOf: "\\u00".utf8)
                buffer.append(hexDigits[Int(byte >> 4)])
                buffer.append(hexDigits[Int(byte & 0x0F)])
            default: buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Whether any byte is a control character, `"` or `\\`. Eight bytes at a time: each word is
    /// tested for all three with a few arithmetic operations instead of three comparisons and a
    /// branch per byte (outcome records and payloads write a dozen strings each, tokens and ids of
    /// 36–64 bytes among them).
    public static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
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
        switch value {
        case .null: buffer.append(contentsOf: "null".utf8)
        case .bool(let flag): buffer.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number): appendInteger(number, to: &buffer)
        case .double(let number): appendDouble(number, to: &buffer)
        case .string(let text): appendString(text, to: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                appendValue(element, to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                appendString(member.key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                appendValue(member.value, to: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `number` in decimal, as `String(number)` writes it.
    public static func appendInteger(_ number: Int64, to buffer: inout [UInt8]) {
        buffer.appendDecimal(number)
    }

    /// Swift's shortest round-trip form ("0.5", "1e-05", "25.0") is valid JSON for finite values.
    public static func appendDouble(_ number: Double, to buffer: inout [UInt8]) {
        guard number.isFinite else {
            buffer.append(contentsOf: "null".utf8)
            return
        }
        buffer.append(contentsOf: number.description.utf8)
    }
}
