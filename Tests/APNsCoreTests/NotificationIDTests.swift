@testable import APNsCore
import Testing

/// Spec §1.3 and §1.5: `apns-id` is a canonical UUID, read in any case; Pushline derives it as a
/// name-based (version 5) UUID so a retry carries the same id.
@Suite("NotificationID")
struct NotificationIDTests {
    static let dnsNamespace = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"

    static func token(_ hex: String) throws -> DeviceToken {
        try DeviceToken(hex)
    }

    // MARK: Name-based ids

    @Test("uuid5(NAMESPACE_DNS, \"python.org\") is the published vector")
    func knownVersion5Vector() throws {
        let namespace = try #require(NotificationID(Self.dnsNamespace))
        let id = NotificationID.nameBased(Array("python.org".utf8), namespace: namespace)
        #expect(id.description == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    @Test("the same intent and token always derive the same id")
    func derivedIsDeterministic() throws {
        let token = try Self.token(Fixture.deviceToken)
        let first = NotificationID.derived(intentID: "intent-42", deviceToken: token)
        let second = NotificationID.derived(intentID: "intent-42", deviceToken: token)
        #expect(first == second)
        #expect(first.description == second.description)
    }

    @Test("a different intent derives a different id")
    func derivedDiffersByIntent() throws {
        let token = try Self.token(Fixture.deviceToken)
        #expect(NotificationID.derived(intentID: "intent-42", deviceToken: token)
            != NotificationID.derived(intentID: "intent-43", deviceToken: token))
    }

    @Test("a different token derives a different id")
    func derivedDiffersByToken() throws {
        #expect(NotificationID.derived(intentID: "intent-42", deviceToken: try Self.token("a1b2"))
            != NotificationID.derived(intentID: "intent-42", deviceToken: try Self.token("a1b3")))
    }

    @Test("moving characters between intent and token changes the id")
    func derivedKeepsIntentAndTokenApart() throws {
        // Both pairs concatenate to "x12345"; only the separator between them tells them apart.
        #expect(NotificationID.derived(intentID: "x1", deviceToken: try Self.token("2345"))
            != NotificationID.derived(intentID: "x123", deviceToken: try Self.token("45")))
    }

    @Test("the token's case does not change the derived id")
    func derivedIgnoresTokenCase() throws {
        #expect(NotificationID.derived(intentID: "i", deviceToken: try Self.token("A1B2C3"))
            == NotificationID.derived(intentID: "i", deviceToken: try Self.token("a1b2c3")))
    }

    @Test("a derived id is the name-based id of the intent id, a NUL and the token (vectors from Python's uuid5)",
          arguments: [("intent-42", "e1db7d2b-1a4e-5d68-b359-70e33c26a6e6"), ("日本語の意図", "32d7ac38-6010-50c4-893c-347bc9977e2d")])
    func derivedMatchesPublishedConstruction(intentID: String, expected: String) throws {
        let token = try Self.token("A1B2C3D4")
        let id = NotificationID.derived(intentID: intentID, deviceToken: token)
        #expect(id.description == expected)
        #expect(id == NotificationID.nameBased(Array(intentID.utf8) + [0] + Array("a1b2c3d4".utf8),
                                               namespace: NotificationID.pushlineNamespace))
    }

    @Test("derived ids are version 5 with the RFC 9562 variant",
          arguments: ["", "intent-42", "日本語の意図", String(repeating: "long-intent-", count: 20)])
    func derivedIsVersion5(intentID: String) throws {
        let id = NotificationID.derived(intentID: intentID, deviceToken: try Self.token(Fixture.deviceToken))
        #expect(id.bytes.count == 16)
        #expect(id.bytes[6] >> 4 == 5)
        #expect(id.bytes[8] & 0xC0 == 0x80)
        let text = Array(id.description)
        #expect(text[14] == "5")
        #expect("89ab".contains(text[19]))
    }

    // MARK: Random ids

    @Test("random ids are version 4 with the RFC 9562 variant")
    func randomIsVersion4() {
        for _ in 0..<64 {
            let id = NotificationID.random()
            #expect(id.bytes.count == 16)
            #expect(id.bytes[6] >> 4 == 4)
            #expect(id.bytes[8] & 0xC0 == 0x80)
        }
    }

    @Test("random ids are distinct")
    func randomIsDistinct() {
        let ids = (0..<1000).map { _ in NotificationID.random() }
        #expect(Set(ids).count == 1000)
    }

    /// A generator that repeats for a seed: enough to show the id depends only on the generator.
    struct RepeatableGenerator: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test("a random id from a given generator is version 4 and repeats with the generator's state")
    func randomUsingGeneratorRepeats() {
        var first = RepeatableGenerator(state: 42)
        var second = RepeatableGenerator(state: 42)
        let id = NotificationID.random(using: &first)
        #expect(id == NotificationID.random(using: &second))
        #expect(id != NotificationID.random(using: &first))
        #expect(id.bytes[6] >> 4 == 4)
        #expect(id.bytes[8] >> 6 == 2)
    }

    // MARK: Text form

    @Test("an upper-case id parses equal to its lower-case form")
    func upperCaseParsesEqual() throws {
        let upper = try #require(NotificationID("ACDFB3EB-105B-4F3A-9C2D-0A1B2C3D4E5F"))
        let lower = try #require(NotificationID("acdfb3eb-105b-4f3a-9c2d-0a1b2c3d4e5f"))
        #expect(upper == lower)
        #expect(upper.description == "acdfb3eb-105b-4f3a-9c2d-0a1b2c3d4e5f")
    }

    @Test("the description is the canonical lower-case 8-4-4-4-12 form and parses back")
    func descriptionRoundTrips() throws {
        let id = NotificationID.random()
        let text = id.description
        #expect(text.count == 36)
        #expect(text == text.lowercased())
        #expect(text.split(separator: "-", omittingEmptySubsequences: false).map(\.count) == [8, 4, 4, 4, 12])
        #expect(NotificationID(text) == id)
    }

    @Test("the bytes are the hex pairs in order")
    func bytesFollowText() throws {
        let id = try #require(NotificationID("00112233-4455-6677-8899-aabbccddeeff"))
        #expect(id.bytes == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
    }

    @Test("a malformed id is rejected (BadMessageId)", arguments: [
        "",
        "886313e13b8a53729b900c9aee199e5d",
        "886313e1-3b8a-5372-9b90-0c9aee199e5",
        "886313e1-3b8a-5372-9b90-0c9aee199e5d0",
        "886313e1-3b8a-5372-9b90_0c9aee199e5d",
        "886313e13-b8a-5372-9b90-0c9aee199e5d",
        "886313e1-3b8a-5372-9b90-0c9aee199e5g",
        "{886313e1-3b8a-5372-9b90-0c9aee199e5d}",
        "urn:uuid:886313e1-3b8a-5372-9b90-0c9aee199e5d",
        " 886313e1-3b8a-5372-9b90-0c9aee199e5d",
        "886313e1-3b8a-5372-9b90-0c9aee199eé",
        "+86313e1-3b8a-5372-9b90-0c9aee199e5d",
        // The bytes just outside the digit and letter ranges, in either case.
        "/86313e1-3b8a-5372-9b90-0c9aee199e5d",
        "886313e1-3b8a-5372-9b90-0c9aee199e5:",
        "886313e1-@b8a-5372-9b90-0c9aee199e5d",
        "886313e1-3b8a-G372-9b90-0c9aee199e5d",
        "886313e1-3b8a-5372-`b90-0c9aee199e5d",
    ])
    func malformedIsRejected(text: String) {
        #expect(NotificationID(text) == nil)
    }
}
