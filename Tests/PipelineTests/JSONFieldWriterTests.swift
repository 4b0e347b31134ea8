import APNsCore
@testable import Pipeline
import Testing

@Suite("The record writer")
struct JSONFieldWriterTests {
    /// Every kind of piece the writer writes: keys and separators, escaped and plain, empty and
    /// non-ASCII text, a notification id, integers at their extremes, doubles finite and not, a
    /// bool and a nested object.
    private static func fields(_ writer: inout JSONFieldWriter) {
        writer.integer("min", Int64.min)
        writer.string("plain", "com.example.app")
        writer.string("escaped", "a\"b\\c\nd\re\tf\u{1}g\u{1F}é")
        writer.string("empty", "")
        writer.string("absent", nil as String?)
        writer.string("id", NotificationID("949D31E3-556C-4088-806A-0D08F05D0C78"))
        writer.bool("flag", true)
        writer.object("source") { nested in
            nested.string("topic", "pushline.intents")
            nested.integer("offset", 0)
        }
        writer.double("latency", 12.5)
        writer.double("infinite", .infinity)
        writer.integer("max", Int64.max)
    }

    private static let expected = #"{"min":-9223372036854775808,"plain":"com.example.app","escaped":"a\"b\\c\nd\re\tf\u0001g\u001fé","#
        + #""empty":"","id":"949d31e3-556c-4088-806a-0d08f05d0c78","flag":true,"#
        + #""source":{"topic":"pushline.intents","offset":0},"latency":12.5,"infinite":null,"max":9223372036854775807}"#

    @Test("a record's bytes are the same whatever room it starts with: it runs out at every byte of it, on a single byte, inside an escape, at exactly full")
    func sameBytesAtEveryEdge() {
        let roomy = JSONFieldWriter.record(capacity: 1 << 16, Self.fields)
        #expect(String(decoding: roomy, as: UTF8.self) == Self.expected)
        for capacity in 1...(roomy.count + 1) {
            let written = JSONFieldWriter.record(capacity: capacity, Self.fields)
            #expect(written == roomy, "room of \(capacity) bytes: \(String(decoding: written, as: UTF8.self))")
        }
    }
}
