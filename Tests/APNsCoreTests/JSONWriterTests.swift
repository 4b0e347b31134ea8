@testable import APNsCore
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

    @Test("finite doubles are written as Swift's description writes them, latencies from nanoseconds included")
    func doublesAsDescription() {
        // Latencies in milliseconds from nanoseconds (written from their millionths), the edges
        // of that form, and numbers outside it (written by the description itself).
        var numbers: [Double] = [0.0001, 0.000_099_999, 0.00001, 0.001, 0.5, 1, 25, 100.1, 12.345678, 536_870_911.999999,
                                 536_870_912, 536_870_912.5, 1e15, 1e16, 0.1 + 0.2, 1.0 / 3, -0.0, 0, -12.5, -0.0001,
                                 Double.ulpOfOne, 123456.789]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        for _ in 0..<5_000 {
            numbers.append(Double(next() % 10_000_000_000) / 1_000_000)  // up to 10 s in nanoseconds
            numbers.append(Double(next() % 1_000_000) / 1_000_000)  // below a millisecond
            numbers.append(Double(next() % 600_000_000_000_000) / 1_000_000)  // up to a week
            numbers.append(Double(bitPattern: next() << 11 | next() >> 42))  // any bit pattern
        }
        var mismatches: [String] = []
        for number in numbers where number.isFinite {
            var buffer: [UInt8] = []
            JSONWriter.appendDouble(number, to: &buffer)
            let written = String(decoding: buffer, as: UTF8.self)
            if written != number.description { mismatches.append("\(number.description) written as \(written)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("latencies from 100 ns to about 6 days are written from their millionths; other numbers are not")
    func millionthsTaken() {
        #expect(JSONWriter.wholeMillionths(of: 25) == 25_000_000)
        #expect(JSONWriter.wholeMillionths(of: 0.0001) == 100)
        #expect(JSONWriter.wholeMillionths(of: -12.345678) == 12_345_678)
        #expect(JSONWriter.wholeMillionths(of: Double(1_234_567_891) / 1_000_000) == 1_234_567_891)
        #expect(JSONWriter.wholeMillionths(of: 536_870_911.999999) == 536_870_911_999_999)
        for outside in [0, 0.0001.nextDown, 536_870_912, 0.1 + 0.2, 1.0 / 3] {
            #expect(JSONWriter.wholeMillionths(of: outside) == nil, "\(outside)")
        }
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

    @Test("keys are escaped as strings are")
    func escapedKeys() {
        let object = JSONObject([.init("k\"\n\u{1}", 1), .init("é", .object(JSONObject([.init("\\", "v")])))])
        #expect(Self.written(.object(object)) == #"{"k\"\n\u0001":1,"é":{"\\":"v"}}"#)
    }

    @Test("a sink of the caller's gets the same text, in pieces and single bytes")
    func sink() {
        struct Pieces: JSONSink {
            var text: [UInt8] = []
            var singleBytes = 0
            mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { text.append(contentsOf: bytes) }
            mutating func write(byte: UInt8) {
                text.append(byte)
                singleBytes += 1
            }
        }
        let value: JSONValue = .object(["a": [1, 2.5, "x\n", nil, true], "o": .object([:])])
        var sink = Pieces()
        JSONWriter.write(value, to: &sink)
        #expect(String(decoding: sink.text, as: UTF8.self) == Self.written(value))
        // Braces, brackets, commas, colons and quotes: {"a":[1,2.5,"x\n",null,true],"o":{}}
        #expect(sink.singleBytes == 19)
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
