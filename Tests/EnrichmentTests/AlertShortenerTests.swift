import APNsCore
@testable import Enrichment
import Testing

@Suite("Shortening alerts that are too large")
struct AlertShortenerTests {
    private let fixture: CatalogFixture

    init() throws {
        fixture = try CatalogFixture(templates: """
            templates:
              note:
                alert:
                  title: "{{title}}"
                  subtitle: "{{subtitle}}"
                  body: "{{body}}"
                custom:
                  blob: "{{blob}}"
            """)
    }

    private func compose(title: String = "T", subtitle: String = "S", body: String, blob: String = "") throws -> (Delivery, JSONObject) {
        func quoted(_ text: String) -> String {
            var buffer: [UInt8] = []
            JSONWriter.appendString(text, to: &buffer)
            return String(decoding: buffer, as: UTF8.self)
        }
        let delivery = try #require(try fixture.deliveries("""
            "template":"note","args":{"title":\(quoted(title)),"subtitle":\(quoted(subtitle)),"body":\(quoted(body)),"blob":\(quoted(blob))}
            """).first)
        guard case .object(let payload) = try JSONParser.parse(delivery.payload) else { throw CatalogFixture.FixtureError.unexpectedShape }
        return (delivery, payload)
    }

    @Test("a payload that fits is left alone")
    func fits() throws {
        let (delivery, payload) = try compose(body: "short")
        #expect(!delivery.wasShortened)
        #expect(payload.at("aps.alert.body") == "short")
    }

    @Test("the body is cut between emoji grapheme clusters, with an ellipsis, to fill the limit")
    func emoji() throws {
        let family = "👩‍👩‍👧‍👦" // one grapheme, 25 UTF-8 bytes
        let original = String(repeating: family, count: 400)
        let (delivery, payload) = try compose(body: original)
        #expect(delivery.wasShortened)
        #expect(delivery.payload.count <= 4096)
        #expect(delivery.payload.count > 4096 - family.utf8.count - 3)
        let body = try #require(payload.at("aps.alert.body")?.stringValue)
        #expect(body.hasSuffix("…"))
        #expect(body.dropLast().allSatisfy { $0 == Character(family) })
    }

    @Test("combining marks stay with their base letter")
    func combiningMarks() throws {
        let letter = "e\u{301}\u{323}" // é with a dot below: one grapheme, three scalars
        let (_, payload) = try compose(body: String(repeating: letter, count: 2000))
        let body = try #require(payload.at("aps.alert.body")?.stringValue)
        #expect(body.unicodeScalars.count % 3 == 1) // whole letters plus the ellipsis
        #expect(body.dropLast().allSatisfy { $0 == Character(letter) })
    }

    @Test("when the body alone cannot make room, the subtitle is shortened next")
    func subtitleNext() throws {
        let title = String(repeating: "t", count: 1200)
        let (delivery, payload) = try compose(title: title, subtitle: String(repeating: "s", count: 3000),
                                              body: String(repeating: "b", count: 3000))
        #expect(delivery.payload.count <= 4096)
        #expect(payload.at("aps.alert.body") == "…")
        let subtitle = try #require(payload.at("aps.alert.subtitle")?.stringValue)
        #expect(subtitle.hasSuffix("…") && subtitle.count > 2000)
        #expect(payload.at("aps.alert.title")?.stringValue == title)
    }

    @Test("the title is shortened last")
    func titleLast() throws {
        let (delivery, payload) = try compose(title: String(repeating: "t", count: 5000), subtitle: String(repeating: "s", count: 3000),
                                              body: String(repeating: "b", count: 3000))
        #expect(delivery.payload.count <= 4096)
        #expect(payload.at("aps.alert.body") == "…")
        #expect(payload.at("aps.alert.subtitle") == "…")
        let title = try #require(payload.at("aps.alert.title")?.stringValue)
        #expect(title.hasSuffix("…") && title.count > 3900)
    }

    @Test("trailing white space is dropped before the ellipsis")
    func trailingSpace() {
        #expect(AlertShortener.shortened(Array("see you  soon"), keeping: 9) == "see you…")
    }

    @Test("custom data too large on its own is PayloadTooLarge")
    func customDataTooLarge() throws {
        #expect { try compose(body: "hi", blob: String(repeating: "x", count: 4100)) } throws: { error in
            guard let error = error as? EnrichmentError else { return false }
            return error.code == .payloadTooLarge && error.detail.contains("custom data")
        }
    }
}
