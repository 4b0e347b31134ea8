import APNsCore
import Foundation
import Testing

/// The writer under the payload builder: RFC 8259 text that Foundation reads back unchanged.
@Suite("JSONWriter")
struct JSONWriterTests {
    static func written(_ value: JSONValue) -> String {
        var buffer: [UInt8] = []
        JSONWriter.appendValue(value, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("scalars are written in their JSON form", arguments: [
        (JSONValue.null, "null"), (true, "true"), (false, "false"), (0, "0"), (-42, "-42"),
        (.integer(.max), "9223372036854775807"), (.integer(.min), "-9223372036854775808"),
        (0.5, "0.5"), ("a", #""a""#),
    ] as [(JSONValue, String)])
    func scalars(value: JSONValue, text: String) {
        #expect(Self.written(value) == text)
    }

    @Test("finite doubles are written so that Foundation reads the same number",
          arguments: [0.1, -2.5, 1e-5, 1e21, 25.0, 123456.789, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude])
    func doublesRoundTrip(number: Double) throws {
        let text = Self.written(.array([.double(number)]))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Double])
        #expect(parsed == [number])
        #expect(try JSONParser.parse(Array(text.utf8)) == .array([.double(number)]))
    }

    @Test("non-finite doubles, which JSON cannot express, are written as null", arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteIsNull(number: Double) {
        #expect(Self.written(.double(number)) == "null")
    }

    @Test("containers keep their order, including repeated keys")
    func containers() {
        let object = JSONObject([.init("b", 1), .init("a", [true, nil]), .init("b", .object([:]))])
        #expect(Self.written(.object(object)) == #"{"b":1,"a":[true,null],"b":{}}"#)
    }

    @Test("Pushline's parser reads back what the writer wrote")
    func parserReadsWriter() throws {
        let value: JSONValue = .object([
            "s": "quote \" slash \\ nl \n nul \u{0} emoji 😀", "n": -7, "d": 0.25, "a": [1, "x", nil, false],
            "o": .object(["k": "v"]),
        ])
        var buffer: [UInt8] = []
        JSONWriter.appendValue(value, to: &buffer)
        #expect(try JSONParser.parse(buffer) == value)
    }
}
