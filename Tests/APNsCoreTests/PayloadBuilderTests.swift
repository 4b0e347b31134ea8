import APNsCore
import Foundation
import Testing

/// Spec §4.2 and §4.3: the builder writes every `aps` key under its JSON name and with its JSON
/// type. Every output is read back with Foundation's parser, independently of Pushline's own.
@Suite("APNsPayload builder")
struct PayloadBuilderTests {
    /// Foundation's canonical text for a parsed value: sorted keys, booleans as `true`/`false`, so
    /// a number written as a boolean, or a string written for a number, compares unequal.
    static func canonical(_ value: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    static func canonical(json: String) throws -> String {
        try canonical(JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed))
    }

    /// One `aps` key: a payload that sets only it, and the value it must be written as.
    struct ApsKeyCase: Sendable, CustomTestStringConvertible {
        let key: String
        let payload: APNsPayload
        let expectedJSON: String
        var testDescription: String { "\(key) = \(expectedJSON)" }
    }

    static let apsKeyCases: [ApsKeyCase] = [
        ApsKeyCase(key: "alert", payload: APNsPayload(alert: .body("Hello")), expectedJSON: #""Hello""#),
        ApsKeyCase(key: "badge", payload: APNsPayload(badge: 3), expectedJSON: "3"),
        ApsKeyCase(key: "badge", payload: APNsPayload(badge: 0), expectedJSON: "0"),
        ApsKeyCase(key: "sound", payload: APNsPayload(sound: .named("default")), expectedJSON: #""default""#),
        ApsKeyCase(key: "sound", payload: APNsPayload(sound: .named("chime.caf")), expectedJSON: #""chime.caf""#),
        ApsKeyCase(key: "thread-id", payload: APNsPayload(threadID: "thread-1"), expectedJSON: #""thread-1""#),
        ApsKeyCase(key: "category", payload: APNsPayload(category: "MESSAGE"), expectedJSON: #""MESSAGE""#),
        ApsKeyCase(key: "content-available", payload: APNsPayload(contentAvailable: true), expectedJSON: "1"),
        ApsKeyCase(key: "mutable-content", payload: APNsPayload(mutableContent: true), expectedJSON: "1"),
        ApsKeyCase(key: "target-content-id", payload: APNsPayload(targetContentID: "window-1"), expectedJSON: #""window-1""#),
        ApsKeyCase(key: "interruption-level", payload: APNsPayload(interruptionLevel: .passive), expectedJSON: #""passive""#),
        ApsKeyCase(key: "interruption-level", payload: APNsPayload(interruptionLevel: .active), expectedJSON: #""active""#),
        ApsKeyCase(key: "interruption-level", payload: APNsPayload(interruptionLevel: .timeSensitive), expectedJSON: #""time-sensitive""#),
        ApsKeyCase(key: "interruption-level", payload: APNsPayload(interruptionLevel: .critical), expectedJSON: #""critical""#),
        ApsKeyCase(key: "relevance-score", payload: APNsPayload(relevanceScore: 0.75), expectedJSON: "0.75"),
        ApsKeyCase(key: "relevance-score", payload: APNsPayload(relevanceScore: 0), expectedJSON: "0"),
        ApsKeyCase(key: "filter-criteria", payload: APNsPayload(filterCriteria: "work"), expectedJSON: #""work""#),
        ApsKeyCase(
            key: "sound", payload: APNsPayload(sound: .critical(name: "siren.caf", volume: 0.8)),
            expectedJSON: #"{"critical": 1, "name": "siren.caf", "volume": 0.8}"#
        ),
        ApsKeyCase(
            key: "sound", payload: APNsPayload(sound: .critical(name: "default", volume: 1)),
            expectedJSON: #"{"critical": 1, "name": "default", "volume": 1}"#
        ),
    ]

    @Test("each aps key is written alone, under its JSON name, with its JSON type", arguments: apsKeyCases)
    func apsKeyNameAndType(testCase: ApsKeyCase) throws {
        let bytes = testCase.payload.encoded()
        #expect(try Array(foundationObject(bytes).keys) == ["aps"])
        let aps = try foundationAps(bytes)
        #expect(Array(aps.keys) == [testCase.key])
        let written = try #require(aps[testCase.key])
        #expect(try Self.canonical(written) == Self.canonical(json: testCase.expectedJSON))
    }

    @Test("flags are written as the number 1, not as true")
    func flagsAreNumberOne() {
        let text = String(decoding: APNsPayload(contentAvailable: true, mutableContent: true).encoded(), as: UTF8.self)
        #expect(text.contains(#""content-available":1"#))
        #expect(text.contains(#""mutable-content":1"#))
        #expect(!text.contains("true"))
    }

    @Test("an empty payload is an empty aps dictionary; unset and false fields are left out")
    func unsetFieldsAreLeftOut() {
        #expect(APNsPayload().encoded() == Array(#"{"aps":{}}"#.utf8))
        #expect(APNsPayload(contentAvailable: false, mutableContent: false).encoded() == Array(#"{"aps":{}}"#.utf8))
    }

    @Test("every aps key together is written once each")
    func allApsKeysTogether() throws {
        let payload = APNsPayload(
            alert: .body("Hello"), badge: 1, sound: .named("default"), threadID: "t", category: "c",
            contentAvailable: true, mutableContent: true, targetContentID: "w", interruptionLevel: .active,
            relevanceScore: 0.5, filterCriteria: "f"
        )
        let aps = try foundationAps(payload.encoded())
        #expect(Set(aps.keys) == [
            "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
            "target-content-id", "interruption-level", "relevance-score", "filter-criteria",
        ])
        #expect(try JSONParser.parse(payload.encoded()).objectValue?["aps"]?.objectValue?.repeatedKeys == [])
    }

    // MARK: Alert dictionary

    @Test("the alert dictionary carries every key of spec §4.3 with string arrays for loc-args")
    func alertDictionaryAllKeys() throws {
        let content = AlertContent(
            title: "Title", subtitle: "Subtitle", body: "Body", launchImage: "Launch.png",
            titleLocKey: "TITLE_KEY", titleLocArgs: ["t1", "t2"],
            subtitleLocKey: "SUBTITLE_KEY", subtitleLocArgs: ["s1"],
            locKey: "BODY_KEY", locArgs: ["b1", "b2", "b3"]
        )
        let aps = try foundationAps(APNsPayload(alert: .content(content)).encoded())
        let alert = try #require(aps["alert"])
        #expect(try Self.canonical(alert) == Self.canonical(json: """
            {"title": "Title", "subtitle": "Subtitle", "body": "Body", "launch-image": "Launch.png",
             "title-loc-key": "TITLE_KEY", "title-loc-args": ["t1", "t2"],
             "subtitle-loc-key": "SUBTITLE_KEY", "subtitle-loc-args": ["s1"],
             "loc-key": "BODY_KEY", "loc-args": ["b1", "b2", "b3"]}
            """))
    }

    @Test("an alert dictionary writes only the keys that are set")
    func alertDictionaryOnlySetKeys() throws {
        let aps = try foundationAps(APNsPayload(alert: .content(AlertContent(title: "T", body: "B"))).encoded())
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(Set(alert.keys) == ["title", "body"])
    }

    @Test("empty loc-args are written as an empty array, not left out")
    func emptyLocArgsAreWritten() throws {
        let aps = try foundationAps(APNsPayload(alert: .content(AlertContent(locKey: "K", locArgs: []))).encoded())
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect((alert["loc-args"] as? [Any])?.isEmpty == true)
    }

    // MARK: Live Activity

    @Test("a Live Activity start writes every ActivityKit key of spec §4.2")
    func liveActivityStartKeys() throws {
        let content = LiveActivityContent(
            timestamp: 1_700_000_000, event: .start, contentState: ["score": "2-1", "minute": 67],
            staleDate: 1_700_003_600, dismissalDate: 1_700_007_200, attributesType: "MatchAttributes",
            attributes: ["home": "Lions", "away": "Tigers"], inputPushToken: true, inputPushChannel: "dHN0LTEyMw=="
        )
        let payload = APNsPayload(alert: .content(AlertContent(title: "Kick-off", body: "Lions v Tigers")), liveActivity: content)
        let aps = try foundationAps(payload.encoded())
        #expect(Set(aps.keys) == [
            "alert", "timestamp", "event", "content-state", "stale-date", "dismissal-date", "attributes-type",
            "attributes", "input-push-token", "input-push-channel",
        ])
        let expected: [String: String] = [
            "timestamp": "1700000000",
            "event": #""start""#,
            "content-state": #"{"score": "2-1", "minute": 67}"#,
            "stale-date": "1700003600",
            "dismissal-date": "1700007200",
            "attributes-type": #""MatchAttributes""#,
            "attributes": #"{"home": "Lions", "away": "Tigers"}"#,
            "input-push-token": "1",
            "input-push-channel": #""dHN0LTEyMw==""#,
        ]
        for (key, json) in expected {
            let written = try #require(aps[key], "aps.\(key)")
            #expect(try Self.canonical(written) == Self.canonical(json: json), "aps.\(key)")
        }
    }

    @Test("a Live Activity update leaves out the start-only and unset keys", arguments: [LiveActivityEvent.update, .end])
    func liveActivityUpdateKeys(event: LiveActivityEvent) throws {
        let content = LiveActivityContent(timestamp: 1_700_000_000, event: event, contentState: ["score": "3-1"])
        let aps = try foundationAps(APNsPayload(liveActivity: content).encoded())
        #expect(Set(aps.keys) == ["timestamp", "event", "content-state"])
        #expect(aps["event"] as? String == event.rawValue)
    }

    @Test("a Live Activity relevance score may be any number and is written as given")
    func liveActivityRelevanceScore() throws {
        let content = LiveActivityContent(timestamp: 1, event: .update, contentState: [:])
        let aps = try foundationAps(APNsPayload(relevanceScore: 50, liveActivity: content).encoded())
        #expect(aps["relevance-score"] as? Double == 50)
    }

    // MARK: Custom keys

    @Test("custom keys go beside aps, in order, with their JSON types")
    func customKeys() throws {
        let custom: JSONObject = [
            "order-id": "A-1", "count": 2, "price": 9.5, "gift": true, "coupon": nil,
            "items": [1, "two"], "meta": .object(["source": "web"]),
        ]
        let bytes = APNsPayload(alert: .body("Shipped"), custom: custom).encoded()
        let root = try foundationObject(bytes)
        #expect(Set(root.keys) == ["aps", "order-id", "count", "price", "gift", "coupon", "items", "meta"])
        let expected: [String: String] = [
            "order-id": #""A-1""#, "count": "2", "price": "9.5", "gift": "true", "coupon": "null",
            "items": #"[1, "two"]"#, "meta": #"{"source": "web"}"#,
        ]
        for (key, json) in expected {
            let written = try #require(root[key], "\(key)")
            #expect(try Self.canonical(written) == Self.canonical(json: json), "\(key)")
        }
        let order = try JSONParser.parse(bytes).objectValue?.members.map(\.key)
        #expect(order == ["aps", "order-id", "count", "price", "gift", "coupon", "items", "meta"])
    }

    // MARK: Escaping

    /// Strings that a naive writer would corrupt or that could break out of their JSON string.
    static let hostileStrings: [String] = [
        #"say "hi""#,
        #"back\slash \\ and \""#,
        "line\nbreak\rreturn\ttab",
        "\u{01}start of heading, \u{00}nul, \u{08}backspace, \u{0C}form feed, \u{1F}unit separator",
        "delete \u{7F}",
        "😀 👍🏽 👨‍👩‍👧‍👦 🇫🇷",
        "שלום עולם",
        "مرحبا بالعالم",
        "\u{202E}override\u{202C} and \u{200F}mark",
        "line separator \u{2028} paragraph separator \u{2029}",
        #"","aps":{}"#,
        #"x"}},"aps":{"alert":"injected"},"y":{"z":""#,
        #"\"},"aps":{}"#,
        "</script><script>",
        "",
    ]

    @Test("an alert body round-trips exactly and adds no key", arguments: hostileStrings)
    func alertBodyRoundTrips(text: String) throws {
        let bytes = APNsPayload(alert: .body(text)).encoded()
        let root = try foundationObject(bytes)
        #expect(Array(root.keys) == ["aps"])
        let aps = try foundationAps(bytes)
        #expect(Array(aps.keys) == ["alert"])
        #expect(aps["alert"] as? String == text)
    }

    @Test("a loc-arg round-trips exactly and adds no key", arguments: hostileStrings)
    func locArgRoundTrips(text: String) throws {
        let bytes = APNsPayload(alert: .content(AlertContent(locKey: "K", locArgs: [text, "next"]))).encoded()
        let aps = try foundationAps(bytes)
        #expect(Array(aps.keys) == ["alert"])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(Set(alert.keys) == ["loc-key", "loc-args"])
        #expect(alert["loc-args"] as? [String] == [text, "next"])
    }

    @Test("a custom key name and value round-trip exactly and add no key", arguments: hostileStrings)
    func customKeyRoundTrips(text: String) throws {
        let bytes = APNsPayload(custom: JSONObject([.init("k" + text, .string(text))])).encoded()
        let root = try foundationObject(bytes)
        #expect(Set(root.keys) == ["aps", "k" + text])
        #expect(root["k" + text] as? String == text)
        #expect(try foundationAps(bytes).isEmpty)
    }

    @Test("hostile strings leave the payload valid for the validator", arguments: hostileStrings)
    func hostileStringsValidate(text: String) {
        let payload = APNsPayload(alert: .body(text), custom: JSONObject([.init("k" + text, .string(text))]))
        #expect(reasons(Fixture.request(bytes: payload.encoded())) == [])
    }

    @Test("control characters are escaped, never written raw")
    func controlCharactersEscaped() {
        let control = String(String.UnicodeScalarView((0x00...0x1F as ClosedRange<UInt8>).map(Unicode.Scalar.init)))
        let bytes = APNsPayload(alert: .body(control)).encoded()
        #expect(bytes.allSatisfy { $0 >= 0x20 })
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"\u0001"#))
        #expect(text.contains(#"\n"#))
        #expect(text.contains(#"\t"#))
    }

    @Test("non-ASCII text is written as raw UTF-8")
    func nonASCIIIsRawUTF8() {
        let bytes = APNsPayload(alert: .body("é日😀")).encoded()
        #expect(bytes == Array(#"{"aps":{"alert":"é日😀"}}"#.utf8))
    }

    // MARK: Buffer reuse

    @Test("encode(into:) appends to what the buffer already holds")
    func encodeAppends() {
        let payload = APNsPayload(alert: .body("Hi"), badge: 1)
        var buffer = Array("prefix".utf8)
        payload.encode(into: &buffer)
        #expect(buffer == Array("prefix".utf8) + payload.encoded())
        buffer.removeAll(keepingCapacity: true)
        payload.encode(into: &buffer)
        #expect(buffer == payload.encoded())
    }
}

/// A payload built for each push type, with the topic and priority it goes with, has no violation.
@Suite("Built payloads validate")
struct BuiltPayloadValidationTests {
    static func samplePayload(for pushType: PushType) -> APNsPayload {
        switch pushType {
        case .alert:
            APNsPayload(
                alert: .content(AlertContent(title: "Order shipped", body: "Arrives Tuesday")), badge: 1,
                sound: .named("default"), threadID: "orders", category: "ORDER", mutableContent: true,
                interruptionLevel: .timeSensitive, relevanceScore: 0.8, custom: ["order-id": "A-1"]
            )
        case .background:
            APNsPayload(contentAvailable: true, custom: ["sync": "inbox"])
        case .liveActivity:
            APNsPayload(liveActivity: LiveActivityContent(
                timestamp: 1_700_000_000, event: .update, contentState: ["score": "2-1"], staleDate: 1_700_000_600
            ))
        default:
            APNsPayload(custom: ["info": "app-defined"])
        }
    }

    @Test("a built payload for each push type validates clean", arguments: PushType.all)
    func builtPayloadIsClean(pushType: PushType) {
        let request = Fixture.request(bytes: Self.samplePayload(for: pushType).encoded(), pushType: pushType)
        #expect(NotificationValidator.violations(in: request) == [])
    }

    @Test("a complete Live Activity start validates clean")
    func liveActivityStartIsClean() {
        let payload = APNsPayload(
            alert: .content(AlertContent(title: "Kick-off", body: "Lions v Tigers")),
            relevanceScore: 100,
            liveActivity: LiveActivityContent(
                timestamp: 1_700_000_000, event: .start, contentState: ["score": "0-0"],
                attributesType: "MatchAttributes", attributes: ["home": "Lions"], inputPushToken: true
            )
        )
        #expect(reasons(Fixture.request(bytes: payload.encoded(), pushType: .liveActivity)) == [])
    }

    @Test("a Live Activity end with a dismissal date validates clean")
    func liveActivityEndIsClean() {
        let payload = APNsPayload(liveActivity: LiveActivityContent(
            timestamp: 1_700_000_000, event: .end, contentState: ["score": "3-1"], dismissalDate: 1_700_000_000
        ))
        #expect(reasons(Fixture.request(bytes: payload.encoded(), pushType: .liveActivity, priority: .powerConsiderate)) == [])
    }

    @Test("a critical alert validates clean")
    func criticalAlertIsClean() {
        let payload = APNsPayload(alert: .body("Smoke detected"), sound: .critical(name: "default", volume: 1),
                                  interruptionLevel: .critical)
        #expect(reasons(Fixture.request(bytes: payload.encoded())) == [])
    }
}
