import APNsCore
import Testing

/// The validator's strict RFC 8259 parser: it must see exactly what was sent.
@Suite("JSONParser")
struct JSONParserTests {
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    // MARK: Valid documents

    @Test("literals parse as null and booleans")
    func literals() throws {
        #expect(try Self.parse("null") == .null)
        #expect(try Self.parse("true") == .bool(true))
        #expect(try Self.parse("false") == .bool(false))
    }

    @Test("numbers without fraction or exponent are integers", arguments: [
        ("0", 0), ("-0", 0), ("42", 42), ("-17", -17), ("1700000000123", 1_700_000_000_123),
        ("9223372036854775807", .max), ("-9223372036854775808", .min), ("922337203685477580", 922_337_203_685_477_580),
    ] as [(String, Int64)])
    func integers(text: String, value: Int64) throws {
        #expect(try Self.parse(text) == .integer(value))
    }

    @Test("numbers with fraction or exponent are doubles", arguments: [
        ("1.0", 1.0), ("0.5", 0.5), ("-0.25", -0.25), ("1e3", 1000), ("1E3", 1000),
        ("2.5e-3", 0.0025), ("-1.5E+2", -150), ("0e0", 0),
    ] as [(String, Double)])
    func doubles(text: String, value: Double) throws {
        #expect(try Self.parse(text) == .double(value))
    }

    @Test("an integer beyond 64 bits, either way, is read as a double")
    func hugeIntegerIsDouble() throws {
        #expect(try Self.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try Self.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_809))
        #expect(try Self.parse("9999999999999999999") == .double(9_999_999_999_999_999_999))
        #expect(try Self.parse("92233720368547758070") == .double(92_233_720_368_547_758_070))
    }

    @Test("strings parse with their UTF-8 intact")
    func strings() throws {
        #expect(try Self.parse(#""""#) == .string(""))
        #expect(try Self.parse(#""héllo 日本 😀 שלום""#) == .string("héllo 日本 😀 שלום"))
    }

    @Test("arrays and objects parse with their members in order")
    func containers() throws {
        #expect(try Self.parse("[]") == .array([]))
        #expect(try Self.parse("{}") == .object(JSONObject()))
        #expect(try Self.parse(#"[1, "two", [3], {"four": 4}, null]"#)
            == .array([1, "two", [3], .object(["four": 4]), nil]))
        let object = try Self.parse(#"{"z": 1, "a": {"b": [true]}}"#)
        #expect(object == .object(["z": 1, "a": .object(["b": [true]])]))
        #expect(object.objectValue?.members.map(\.key) == ["z", "a"])
    }

    @Test("white space around and between tokens is allowed")
    func whitespace() throws {
        #expect(try Self.parse(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] } \n") == .object(["a": [1, 2]]))
    }

    @Test("repeated keys are all kept, in order")
    func duplicateKeysKept() throws {
        let value = try Self.parse(#"{"a": 1, "b": 2, "a": 3, "b": 4, "a": 5}"#)
        let object = try #require(value.objectValue)
        #expect(object.members.map(\.key) == ["a", "b", "a", "b", "a"])
        #expect(object.members.map(\.value) == [1, 2, 3, 4, 5])
        #expect(object.repeatedKeys == ["a", "b"])
        #expect(object["a"] == 1)
    }

    // MARK: Escapes

    @Test("the two-character escapes decode", arguments: [
        (#""\"""#, "\""), (#""\\""#, "\\"), (#""\/""#, "/"), (#""\b""#, "\u{08}"),
        (#""\f""#, "\u{0C}"), (#""\n""#, "\n"), (#""\r""#, "\r"), (#""\t""#, "\t"),
    ])
    func simpleEscapes(text: String, expected: String) throws {
        #expect(try Self.parse(text) == .string(expected))
    }

    @Test("\\u escapes decode in either case", arguments: [
        (#""\u0041""#, "A"), (#""\u00e9""#, "é"), (#""\u00E9""#, "é"), (#""\u65e5\u672C""#, "日本"),
        (#""\u0000""#, "\u{0}"), (#""\u001f""#, "\u{1F}"),
    ])
    func unicodeEscapes(text: String, expected: String) throws {
        #expect(try Self.parse(text) == .string(expected))
    }

    @Test("a surrogate pair decodes to one scalar beyond the BMP", arguments: [
        (#""\uD83D\uDE00""#, "😀"), (#""\ud834\udd1e""#, "𝄞"), (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
    ])
    func surrogatePairs(text: String, expected: String) throws {
        #expect(try Self.parse(text) == .string(expected))
    }

    // MARK: Errors

    @Test("anything after the document is an error", arguments: ["{} x", "1 2", "{}}", "[]]", "null,", "\"a\"\"b\""])
    func trailingGarbage(text: String) {
        #expect(throws: JSONParseError.self) { try Self.parse(text) }
    }

    @Test("an unterminated string is an error", arguments: [#"""#, #""abc"#, #"{"a":"b}"#, #"["a\"]"#, #""\"#])
    func unterminatedString(text: String) {
        #expect(throws: JSONParseError.self) { try Self.parse(text) }
    }

    @Test("a raw control character inside a string is an error", arguments: [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] as [UInt8])
    func controlCharacterInString(byte: UInt8) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([UInt8(ascii: "\""), byte, UInt8(ascii: "\"")]) }
    }

    @Test("a lone or mismatched surrogate escape is an error", arguments: [
        #""\uD83D""#, #""\uD83Dx""#, #""\uD83D\u0041""#, #""\uD83D\uD83D""#, #""\uDE00""#, #""\uDE00\uD83D""#,
        #""\uD83D\n""#,
    ])
    func loneSurrogate(text: String) {
        #expect(throws: JSONParseError.self) { try Self.parse(text) }
    }

    @Test("invalid UTF-8 is an error", arguments: [
        [0x22, 0xFF, 0x22],                 // never valid in UTF-8
        [0x22, 0xC3, 0x22],                 // truncated two-byte sequence
        [0x22, 0xC0, 0xAF, 0x22],           // overlong '/'
        [0x22, 0xED, 0xA0, 0x80, 0x22],     // an encoded surrogate
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], // beyond U+10FFFF
        [0x22, 0x80, 0x22],                 // lone continuation byte
        [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], // in a key
        [0xC3, 0xA9],                       // outside any string
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
    }

    @Test("leading zeros and malformed numbers are errors", arguments: [
        "01", "-01", "00", "-", "+1", ".5", "1.", "1.e3", "1e", "1e+", "-e1", "0x10", "1_000",
        "NaN", "Infinity", "-Infinity", "1e400", "[01]",
    ])
    func badNumbers(text: String) {
        #expect(throws: JSONParseError.self) { try Self.parse(text) }
    }

    @Test("invalid escapes are errors", arguments: [#""\x""#, #""\u12""#, #""\u12G4""#, #""\U0041""#, #""\'""#])
    func badEscapes(text: String) {
        #expect(throws: JSONParseError.self) { try Self.parse(text) }
    }

    @Test("malformed structure is an error", arguments: [
        "", " ", "tru", "True", "nul", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}", "[1 2]",
        "{\"a\":}", "// comment\n{}", "\u{FEFF}{}", "\u{0C}{}", "{1:2}",
    ])
    func malformedStructure(text: String) {
        #expect(throws: JSONParseError.self) { try Self.parse(text) }
    }

    // MARK: Depth

    @Test("nesting up to the maximum depth is accepted")
    func maximumDepthAccepted() throws {
        let depth = JSONParser.maximumDepth
        #expect(depth == 256)
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        _ = try Self.parse(arrays)
        let objects = String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
        _ = try Self.parse(objects)
    }

    @Test("nesting one deeper than the maximum is an error")
    func deeperThanMaximumRejected() {
        let depth = JSONParser.maximumDepth + 1
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: JSONParseError.self) { try Self.parse(arrays) }
        let objects = String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
        #expect(throws: JSONParseError.self) { try Self.parse(objects) }
    }

    @Test("a very deep document fails cleanly instead of exhausting the stack")
    func veryDeepFailsCleanly() {
        #expect(throws: JSONParseError.self) { try Self.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test("an error reports the byte offset of the problem")
    func errorReportsOffset() {
        let error = #expect(throws: JSONParseError.self) { try Self.parse(#"{"a": 1} x"#) }
        #expect(error?.offset == 9)
    }

    // MARK: A root object's members one by one

    /// What `parseMembers` hands over, as an object, or the root it returns: every key that is
    /// valid UTF-8 is numbered as `field` reads it from its bytes (as `field` must: any other is
    /// the parser's to refuse), and turned back into its text by that number.
    private static func members(_ text: String) throws(JSONParseError) -> JSONValue {
        var keys: [String] = []
        var handed: [(field: Int?, value: JSONValue)] = []
        let root = try JSONParser.parseMembers(Array(text.utf8), field: { utf8 in
            guard let key = String(validating: utf8, as: UTF8.self) else { return nil }
            keys.append(key)
            return keys.count - 1
        }) { handed.append(($0, $1)) }
        return root ?? .object(JSONObject(handed.map { JSONObject.Member($0.field.map { keys[$0] } ?? "?", $0.value) }))
    }

    @Test("parseMembers hands over a root object's members in order, as parse reads them", arguments: [
        #"{}"#, #" {"a":1,"b":{"c":[true,null]},"a":"again"} "#, #"{"k":"\u00e9\n","":-0.5e3}"#,
    ])
    func membersInOrder(text: String) throws {
        #expect(try Self.members(text) == (try Self.parse(text)))
    }

    @Test("parseMembers returns a root that is not an object", arguments: ["[1,{}]", "\"text\"", "12", "null"])
    func nonObjectRoot(text: String) throws {
        #expect(try JSONParser.parseMembers(Array(text.utf8), field: { _ in 0 }) { _, _ in Issue.record("a member of a non-object root") }
                == (try Self.parse(text)))
    }

    @Test("parseMembers hands a key's unescaped bytes to field, and every member to member, known or not")
    func membersByField() throws {
        var handed: [(field: Int?, value: JSONValue)] = []
        let known: [[UInt8]] = [Array("id".utf8), Array("é\n".utf8)]
        _ = try JSONParser.parseMembers(Array(#"{"id":1,"other":[2],"\u00e9\n":"x","i\u0064":3}"#.utf8),
                                        field: { utf8 in known.firstIndex { $0.elementsEqual(utf8) } }) { handed.append(($0, $1)) }
        #expect(handed.map(\.field) == [0, nil, 1, 0])
        #expect(handed.map(\.value) == [.integer(1), .array([.integer(2)]), .string("x"), .integer(3)])
    }

    @Test("parseMembers refuses a key that is not UTF-8 and that field does not know, where parse does, before its member")
    func membersInvalidKey() {
        let bytes: [UInt8] = Array(#"{"a":1,""#.utf8) + [0xFF] + Array(#"":2}"#.utf8)
        let expected = #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        var asked: [[UInt8]] = []
        var handed: [Int?] = []
        let error = #expect(throws: JSONParseError.self) {
            try JSONParser.parseMembers(bytes, field: { utf8 in
                asked.append(Array(utf8))
                return nil
            }) { field, _ in handed.append(field) }
        }
        #expect(error == expected)
        // field is asked first (a key it knows is the UTF-8 of a name), the check follows for the others.
        #expect(asked == [Array("a".utf8), [0xFF]])
        #expect(handed == [nil])
    }

    @Test("parseMembers fails where parse fails, at the same byte", arguments: [
        #"{"a":1} x"#, #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":[1,}"#, #"{"a":"b"#, "", #"{"a":1}}"#, #"{"a\ud800":1}"#,
    ])
    func membersErrors(text: String) {
        let expected = #expect(throws: JSONParseError.self) { try Self.parse(text) }
        let error = #expect(throws: JSONParseError.self) { try Self.members(text) }
        #expect(error == expected)
    }
}
