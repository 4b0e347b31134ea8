/// Why a document is not JSON, and where.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Byte offset of the problem in the document.
    public let offset: Int
    public let message: String

    public var description: String { "\(message) at byte \(offset)" }
}

/// A strict RFC 8259 parser from bytes to ``JSONValue`` with no Foundation: duplicate keys are
/// kept (the validator reports them), invalid UTF-8 is an error, nesting is bounded.
public struct JSONParser {
    /// Deeper documents are rejected rather than risking the stack.
    public static let maximumDepth = 256

    /// The document, borrowed for the duration of ``parse(_:)``: reading through a buffer pointer
    /// spares a bounds check and a reference count per byte.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one complete JSON document; anything but white space after it is an error.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(bytes: buffer)
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw parser.error("unexpected content after the document") }
            return value
        }
    }

    /// Parses one complete document like ``parse(_:)``, but hands each member of a root object to
    /// `member` as it is read instead of collecting them, its key named by `field` straight from the
    /// key's bytes (unescaped): for a decoder that keeps the members it knows, and so builds neither
    /// a root object nor a `String` per key. `field` sees every key's bytes, valid UTF-8 or not, and
    /// must give its number only for the UTF-8 of one of its names (so valid text), nil for any
    /// other; a key it gives nil for is refused unless it is valid UTF-8, as ``parse(_:)`` refuses
    /// it. `member` gets every member, known or not, in order. Returns nil when the root is an
    /// object, else the root.
    public static func parseMembers(_ bytes: [UInt8], field: (_ key: UnsafeBufferPointer<UInt8>) -> Int?,
                                    _ member: (_ field: Int?, _ value: consuming JSONValue) -> Void) throws(JSONParseError) -> JSONValue? {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue? in
            var parser = JSONParser(bytes: buffer)
            parser.skipWhitespace()
            var root: JSONValue?
            if parser.current == UInt8(ascii: "{") {
                // A key `field` knows has the bytes of one of the caller's names, valid UTF-8: only
                // the others are checked.
                try parser.parseMembers(key: { (utf8) -> Int?? in
                    if let known = field(utf8) {
                        assert(Self.isValidUTF8(utf8), "field numbered a key that is not valid UTF-8")
                        return .some(known)
                    }
                    return Self.isValidUTF8(utf8) ? .some(nil) : .none
                }, member)
            } else {
                root = try parser.parseValue()
            }
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw parser.error("unexpected content after the document") }
            return root
        }
    }

    private func error(_ message: String) -> JSONParseError {
        JSONParseError(offset: position, message: message)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of document") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let matches = position + count <= bytes.count
            && (0..<count).allSatisfy { bytes[position + $0] == literal.utf8Start[$0] }
        guard matches else { throw error("invalid literal") }
        position += count
    }

    private mutating func enterNesting() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        var object = JSONObject()
        object.members.reserveCapacity(8)
        try parseMembers(key: Self.validatedString) { key, value in object.members.append(JSONObject.Member(key, value)) }
        return .object(object)
    }

    /// Reads an object from its `{`, handing each member to `member` in order, its key as `key`
    /// makes it from the key's UTF-8 (nil: not valid UTF-8).
    private mutating func parseMembers<Key>(key: (UnsafeBufferPointer<UInt8>) -> Key?,
                                            _ member: (Key, consuming JSONValue) -> Void) throws(JSONParseError) {
        try enterNesting()
        defer { depth -= 1 }
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let name = try parseString(key)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            position += 1
            skipWhitespace()
            member(name, try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterNesting()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(elements)
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        try parseString(Self.validatedString)
    }

    /// Reads a string from its opening quote and hands its UTF-8, unescaped, to `make`, which gives
    /// nil when the bytes are not valid UTF-8.
    private mutating func parseString<Made>(_ make: (UnsafeBufferPointer<UInt8>) -> Made?) throws(JSONParseError) -> Made {
        position += 1
        let start = position
        // Fast path for the common string without escapes: up to the first quote, backslash or
        // control character, read through the base address with the position in a local (not an
        // optional `current` and the stored position per byte); a quote there ends the string,
        // validated in place, no copy.
        let base = bytes.baseAddress!  // not empty: the opening quote is in it
        var end = start
        while end < bytes.count {
            let byte = base[end]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end += 1
        }
        position = end
        if end < bytes.count, base[end] == UInt8(ascii: "\"") {
            position += 1
            guard let made = make(UnsafeBufferPointer(start: base + start, count: end - start)) else {
                throw error("string is not valid UTF-8")
            }
            return made
        }
        var utf8 = Array(bytes[start..<position])
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let made = utf8.withUnsafeBufferPointer(make) else {
                    throw error("string is not valid UTF-8")
                }
                return made
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                throw error("control character in string")
            default:
                utf8.append(byte)
                position += 1
            }
        }
    }

    /// The string, or nil when `utf8` is not valid UTF-8. `String(decoding:)` takes the standard
    /// library's fast path and repairs invalid input with U+FFFD; the input was valid exactly when
    /// nothing was repaired. (`String(validating:)` is generic and far slower here.)
    private static func validatedString(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        let string = String(decoding: utf8, as: UTF8.self)
        if isASCII(utf8) { return string }
        let unchanged = string.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(utf8) }
            ?? string.utf8.elementsEqual(utf8)
        return unchanged ? string : nil
    }

    /// Whether `utf8` is valid UTF-8: ASCII (as keys nearly always are) at the cost of one pass.
    private static func isValidUTF8(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        isASCII(utf8) || validatedString(utf8) != nil
    }

    /// Whether every byte is ASCII: the bytes' bits OR-ed together, with no early exit, which the
    /// compiler turns into a few wide operations instead of a test and branch per byte.
    private static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var bits: UInt8 = 0
        for byte in utf8 { bits |= byte }
        return bits < 0x80
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = try parseHexQuad()
            if (0xD800...0xDBFF).contains(scalarValue) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in \\u escape") }
                position += 2
                let low = try parseHexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw error("unpaired surrogate in \\u escape") }
            utf8.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw error("invalid escape '\\\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func parseHexQuad() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
        } else {
            guard skipDigits() > 0 else { throw error("invalid number") }
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard skipDigits() > 0 else { throw error("invalid number: no digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { throw error("invalid number: no digits in exponent") }
        }
        if isInteger, let integer = Self.integer(UnsafeBufferPointer(rebasing: bytes[start..<position])) { return .integer(integer) }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw error("number out of range") }
        return .double(double)
    }

    /// The value of an integer's digits (after an optional `-`, as the grammar checked them), or nil
    /// when it does not fit in an `Int64`: read straight from the bytes, without a `String` (every
    /// intent has its `created_at`).
    private static func integer(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = digits.first == UInt8(ascii: "-")
        // Accumulated negatively: Int64.min has no positive counterpart.
        var value: Int64 = 0
        for byte in digits.dropFirst(negative ? 1 : 0) {
            let (shifted, overflowedShift) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedDigit) = shifted.subtractingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
            guard !overflowedShift, !overflowedDigit else { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    private mutating func skipDigits() -> Int {
        let start = position
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        return position - start
    }
}
