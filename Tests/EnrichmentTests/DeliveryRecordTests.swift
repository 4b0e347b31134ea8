import APNsCore
@testable import Enrichment
import Testing

/// A delivery kept as fields and read back (``Delivery/write(to:)``, ``Delivery/init(reading:)``):
/// what a deferred delivery's release carries (docs/policies.md).
@Suite("Delivery records")
struct DeliveryRecordTests {
    /// Every field set, none at its default.
    private static func everyField() throws -> Delivery {
        let traits = DeliveryPolicyTraits(category: "marketing", lane: "bulk", expiresAt: 1_800_000_000, timeToLiveSeconds: 3_600,
                                          respectQuietHours: false, campaign: "spring-🌷", liveActivityEvent: .update,
                                          interruptionLevel: .timeSensitive)
        return Delivery(token: try DeviceToken("00ff" + String(repeating: "ab", count: 30)), environment: .sandbox,
                        notificationID: try #require(NotificationID("0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0")), topic: "com.example.app.push-type.liveactivity",
                        pushType: .liveActivity, priority: .powerConsiderate, expiration: .at(unixSeconds: 1_800_000_123),
                        collapseID: "score\n1", payload: Array(#"{"aps":{"alert":"Ünïcödé \u0000"}}"#.utf8),
                        locale: LocaleResolution(requested: "zh-Hant-TW", source: .profile, resolved: "zh-hant"), wasShortened: true,
                        sealing: SealingRequest(plaintext: Array(#"{"body":"secret"}"#.utf8), prefixCount: 17, withoutKey: .placeholder,
                                                placeholderPayload: Array(#"{"aps":{"alert":"New"}}"#.utf8), limit: 4_096),
                        policy: traits)
    }

    private static func record(_ delivery: Delivery) -> [UInt8] {
        var writer = RecordFieldWriter(appendingTo: Array("head".utf8))
        delivery.write(to: &writer)
        return writer.bytes
    }

    private static func read(_ bytes: [UInt8]) throws -> Delivery {
        var reader = RecordFieldReader(bytes, from: 4)
        let delivery = try Delivery(reading: &reader)
        #expect(reader.isAtEnd)
        return delivery
    }

    @Test("every field written reads back the same, after the bytes the writer was given")
    func everyFieldReadsBack() throws {
        let delivery = try Self.everyField()
        let bytes = Self.record(delivery)
        #expect(Array(bytes.prefix(4)) == Array("head".utf8))
        #expect(try Self.read(bytes) == delivery)
    }

    @Test("absent fields stay absent: no collapse id, locale, sealing or policy fields; no expiration and at once")
    func absentFieldsReadBack() throws {
        let full = try Self.everyField()
        for expiration in [APNsExpiration.unspecified, .immediately] {
            let bare = Delivery(token: full.token, environment: .production, notificationID: full.notificationID, topic: "com.example.app",
                                pushType: .alert, priority: .immediate, expiration: expiration, collapseID: nil, payload: [],
                                locale: nil, wasShortened: false)
            #expect(try Self.read(Self.record(bare)) == bare)
        }
    }

    @Test("a composed delivery waiting to be sealed reads back as composed")
    func composedDeliveryReadsBack() throws {
        let fixture = try CatalogFixture(templates: """
            templates:
              sealed:
                alert:
                  body: "{{text}}"
                encrypt: [body]
                placeholder: "New message"
                without_key: placeholder
            """)
        let delivery = try #require(try fixture.deliveries(#""template":"sealed","args":{"text":"meet at 6"},"policy_category":"chat""#).first)
        #expect(delivery.sealing != nil)
        #expect(try Self.read(Self.record(delivery)) == delivery)
    }

    @Test("a record cut short anywhere, or naming a push type, event or interruption level Apple does not document, is not read")
    func brokenRecordsAreNotRead() throws {
        let bytes = Self.record(try Self.everyField())
        for length in 4..<bytes.count {
            #expect(throws: RecordFieldError.self) { try Self.read(Array(bytes.prefix(length))) }
        }
        for (value, unknown) in [("liveactivity", "liveactivitx"), ("update", "updatx"), ("time-sensitive", "time-sensitivx")] {
            // Matched with its length before it: "liveactivity" is in the topic too.
            let field = { (text: String) in [0, 0, 0, UInt8(text.utf8.count)] + Array(text.utf8) }
            let changed = try Self.replacing(field(value), with: field(unknown), in: bytes)
            #expect(throws: RecordFieldError.self) { try Self.read(changed) }
        }
    }

    @Test("a sealing request whose payload prefix runs past the payload is not read (the sealer would copy past its end)")
    func sealingPrefixPastThePayload() throws {
        let delivery = try Self.everyField()
        let bytes = Self.record(delivery)
        let prefix = [0, 0, 0, 8] + withUnsafeBytes(of: Int64(17).bigEndian, Array.init)
        let past = [0, 0, 0, 8] + withUnsafeBytes(of: Int64(delivery.payload.count + 1).bigEndian, Array.init)
        #expect(throws: RecordFieldError.self) { try Self.read(try Self.replacing(prefix, with: past, in: bytes)) }
        let negative = [0, 0, 0, 8] + withUnsafeBytes(of: Int64(-1).bigEndian, Array.init)
        #expect(throws: RecordFieldError.self) { try Self.read(try Self.replacing(prefix, with: negative, in: bytes)) }
    }

    @Test("a record whose headers break the APNs rules (a collapse id over 64 bytes, a topic of another push type) or whose payload is over its push type's limit is not read")
    func headersAreChecked() throws {
        let full = try Self.everyField()
        let breaking = [
            Delivery(token: full.token, environment: .production, notificationID: full.notificationID, topic: "com.example.app",
                     pushType: .alert, priority: .immediate, expiration: .unspecified, collapseID: String(repeating: "c", count: 65),
                     payload: Array(#"{"aps":{}}"#.utf8), locale: nil, wasShortened: false),
            Delivery(token: full.token, environment: .production, notificationID: full.notificationID, topic: "com.example.app",
                     pushType: .liveActivity, priority: .immediate, expiration: .unspecified, collapseID: nil,
                     payload: Array(#"{"aps":{}}"#.utf8), locale: nil, wasShortened: false),
            Delivery(token: full.token, environment: .production, notificationID: full.notificationID, topic: "com.example.app",
                     pushType: .alert, priority: .immediate, expiration: .unspecified, collapseID: nil,
                     payload: Array(repeating: UInt8(ascii: " "), count: 4_097), locale: nil, wasShortened: false),
        ]
        for delivery in breaking {
            #expect(throws: RecordFieldError.self) { try Self.read(Self.record(delivery)) }
        }
    }

    /// `bytes` with the first run of `old` (which must be there) replaced by `new`.
    private static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) throws -> [UInt8] {
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: old) })
        return Array(bytes[..<start]) + new + Array(bytes[(start + old.count)...])
    }
}
