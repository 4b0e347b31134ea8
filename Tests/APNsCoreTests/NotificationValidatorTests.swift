import APNsCore
import Testing

// Spec §1.3–1.5 and §4: the rules `NotificationValidator` checks before anything is sent. Each
// rule is shown broken (the reason is reported) and kept (nothing is reported).

/// Every reason the validator can produce, each from a request that breaks that rule alone.
@Suite("NotificationValidator: every reason")
struct ValidatorReasonCatalogueTests {
    /// A request that breaks exactly the rule behind `reason`. The switch is exhaustive, so a new
    /// reason does not compile until it has an example here.
    static func example(producing reason: Violation.Reason) -> NotificationRequest {
        switch reason {
        case .payloadEmpty: Fixture.request(bytes: [])
        case .payloadTooLarge: Fixture.request(bytes: Fixture.padded(Fixture.alertTemplate, toBytes: 4097))
        case .malformedJSON: Fixture.request(#"{"aps":{"alert":"hi"}"#)
        case .payloadNotObject: Fixture.request(#"[{"aps":{}}]"#)
        case .missingAps: Fixture.request(#"{"alert":"hi"}"#)
        case .apsNotObject: Fixture.request(#"{"aps":"hi"}"#)
        case .duplicateKey: Fixture.request(#"{"aps":{"alert":"hi"},"id":1,"id":2}"#)
        case .customKeyNamedAps: Fixture.request(bytes: APNsPayload(alert: .body("hi"), custom: ["aps": .object([:])]).encoded())
        case .wrongValueType: Fixture.request(#"{"aps":{"badge":"3"}}"#)
        case .backgroundWithAlertSoundOrBadge: Fixture.request(#"{"aps":{"content-available":1,"badge":1}}"#, pushType: .background)
        case .backgroundWithoutContentAvailable: Fixture.request(#"{"aps":{}}"#, pushType: .background)
        case .mutableContentWithoutAlert: Fixture.request(#"{"aps":{"mutable-content":1}}"#)
        case .unknownInterruptionLevel: Fixture.request(#"{"aps":{"alert":"hi","interruption-level":"urgent"}}"#)
        case .relevanceScoreOutOfRange: Fixture.request(#"{"aps":{"alert":"hi","relevance-score":1.5}}"#)
        case .criticalSoundVolumeOutOfRange:
            Fixture.request(#"{"aps":{"alert":"hi","sound":{"critical":1,"name":"default","volume":1.5}}}"#)
        case .liveActivityMissingTimestamp:
            Fixture.request(#"{"aps":{"event":"update","content-state":{}}}"#, pushType: .liveActivity)
        case .liveActivityMissingEvent:
            Fixture.request(#"{"aps":{"timestamp":1700000000,"content-state":{}}}"#, pushType: .liveActivity)
        case .liveActivityUnknownEvent:
            Fixture.request(#"{"aps":{"timestamp":1700000000,"event":"pause","content-state":{}}}"#, pushType: .liveActivity)
        case .liveActivityIncompleteStart:
            Fixture.request(#"{"aps":{"timestamp":1700000000,"event":"start","content-state":{},"alert":"go"}}"#, pushType: .liveActivity)
        case .liveActivityMissingContentState:
            Fixture.request(#"{"aps":{"timestamp":1700000000,"event":"update"}}"#, pushType: .liveActivity)
        case .backgroundPriority:
            Fixture.request(#"{"aps":{"content-available":1}}"#, pushType: .background, priority: .immediate)
        case .badPriority:
            Fixture.request(#"{"aps":{"timestamp":1700000000,"event":"update","content-state":{}}}"#,
                            pushType: .liveActivity, priority: .lowPower)
        case .badCollapseID: Fixture.request(#"{"aps":{"alert":"hi"}}"#, collapseID: String(repeating: "c", count: 65))
        case .missingDeviceToken: Fixture.request(#"{"aps":{"alert":"hi"}}"#, destination: .device(token: ""))
        case .badDeviceToken: Fixture.request(#"{"aps":{"alert":"hi"}}"#, destination: .device(token: "not-hex"))
        case .missingTopic: Fixture.request(#"{"aps":{"alert":"hi"}}"#, topic: "")
        case .topicSuffixMismatch: Fixture.request(#"{"aps":{"alert":"hi"}}"#, topic: "com.example.app.voip")
        }
    }

    @Test("each reason is produced, alone, by a request that breaks only its rule", arguments: Violation.Reason.allCases)
    func reasonIsProducedAlone(reason: Violation.Reason) {
        #expect(reasons(Self.example(producing: reason)) == [reason])
    }

    @Test("every violation carries a detail, and prints as <Reason>: <detail>", arguments: Violation.Reason.allCases)
    func violationHasDetail(reason: Violation.Reason) throws {
        let violation = try #require(NotificationValidator.violations(in: Self.example(producing: reason)).first)
        #expect(!violation.detail.isEmpty)
        #expect(violation.description == "\(reason.rawValue): \(violation.detail)")
    }
}

/// Spec §4.1: the body limit is counted in bytes: 4096, 5120 for VoIP and for broadcast.
@Suite("NotificationValidator: payload size")
struct ValidatorPayloadSizeTests {
    /// A template that is otherwise clean for `pushType`, with `%FILL%` to pad to a size.
    static func template(for pushType: PushType) -> String {
        switch pushType {
        case .alert: Fixture.alertTemplate
        case .background: #"{"aps":{"content-available":1},"data":"%FILL%"}"#
        case .liveActivity: Fixture.liveActivityUpdateTemplate
        default: #"{"aps":{},"data":"%FILL%"}"#
        }
    }

    @Test("an alert payload of exactly 4096 bytes is accepted")
    func alertAtLimitAccepted() {
        let payload = Fixture.padded(Fixture.alertTemplate, toBytes: 4096)
        #expect(payload.count == 4096)
        #expect(reasons(Fixture.request(bytes: payload)) == [])
    }

    @Test("an alert payload of 4097 bytes is PayloadTooLarge")
    func alertOverLimitRejected() {
        let payload = Fixture.padded(Fixture.alertTemplate, toBytes: 4097)
        #expect(payload.count == 4097)
        #expect(reasons(Fixture.request(bytes: payload)) == [.payloadTooLarge])
    }

    @Test("fewer than 4096 characters but more than 4096 UTF-8 bytes is PayloadTooLarge", arguments: ["é", "日本", "😀", "👨‍👩‍👧"])
    func multiByteOverLimitRejected(unit: String) {
        let payload = Fixture.padded(Fixture.alertTemplate, toBytes: 4097, repeating: unit)
        #expect(payload.count == 4097)
        #expect(String(decoding: payload, as: UTF8.self).count < 4096)
        #expect(reasons(Fixture.request(bytes: payload)) == [.payloadTooLarge])
    }

    @Test("multi-byte text filling exactly 4096 bytes is accepted", arguments: ["é", "日本", "😀", "👨‍👩‍👧"])
    func multiByteAtLimitAccepted(unit: String) {
        let payload = Fixture.padded(Fixture.alertTemplate, toBytes: 4096, repeating: unit)
        #expect(payload.count == 4096)
        #expect(reasons(Fixture.request(bytes: payload)) == [])
    }

    @Test("a mostly-ASCII alert tipped over by a few accented letters is PayloadTooLarge")
    func fewAccentsTipOver() {
        let body = String(repeating: "a", count: 4060) + String(repeating: "é", count: 10)
        let payload = Array(#"{"aps":{"alert":"\#(body)"}}"#.utf8)
        #expect(String(decoding: payload, as: UTF8.self).count == 4090)
        #expect(payload.count == 4100)
        #expect(reasons(Fixture.request(bytes: payload)) == [.payloadTooLarge])
    }

    @Test("a VoIP payload of exactly 5120 bytes is accepted")
    func voipAtLimitAccepted() {
        let payload = Fixture.padded(Self.template(for: .voip), toBytes: 5120)
        #expect(reasons(Fixture.request(bytes: payload, pushType: .voip)) == [])
    }

    @Test("a VoIP payload of 5121 bytes is PayloadTooLarge")
    func voipOverLimitRejected() {
        let payload = Fixture.padded(Self.template(for: .voip), toBytes: 5121)
        #expect(reasons(Fixture.request(bytes: payload, pushType: .voip)) == [.payloadTooLarge])
    }

    @Test("the VoIP allowance does not extend to alerts")
    func voipAllowanceIsVoipOnly() {
        let payload = Fixture.padded(Self.template(for: .voip), toBytes: 5120)
        #expect(reasons(Fixture.request(bytes: payload, pushType: .alert)) == [.payloadTooLarge])
    }

    @Test("a broadcast payload of exactly 5120 bytes is accepted")
    func broadcastAtLimitAccepted() {
        let payload = Fixture.padded(Fixture.liveActivityUpdateTemplate, toBytes: 5120)
        #expect(reasons(Fixture.request(bytes: payload, pushType: .liveActivity, destination: .broadcast)) == [])
    }

    @Test("a broadcast payload of 5121 bytes is PayloadTooLarge")
    func broadcastOverLimitRejected() {
        let payload = Fixture.padded(Fixture.liveActivityUpdateTemplate, toBytes: 5121)
        #expect(reasons(Fixture.request(bytes: payload, pushType: .liveActivity, destination: .broadcast)) == [.payloadTooLarge])
    }

    @Test("the broadcast allowance does not extend to a device Live Activity push")
    func broadcastAllowanceIsBroadcastOnly() {
        let payload = Fixture.padded(Fixture.liveActivityUpdateTemplate, toBytes: 5120)
        #expect(reasons(Fixture.request(bytes: payload, pushType: .liveActivity)) == [.payloadTooLarge])
    }

    /// The spec's limit per push type, written out rather than read from `PushType`.
    static func specLimit(_ pushType: PushType) -> Int { pushType == .voip ? 5120 : 4096 }

    @Test("every push type accepts its limit exactly", arguments: PushType.all)
    func everyTypeAtLimitAccepted(pushType: PushType) {
        let payload = Fixture.padded(Self.template(for: pushType), toBytes: Self.specLimit(pushType))
        #expect(reasons(Fixture.request(bytes: payload, pushType: pushType)) == [])
    }

    @Test("every push type rejects one byte over its limit", arguments: PushType.all)
    func everyTypeOverLimitRejected(pushType: PushType) {
        let payload = Fixture.padded(Self.template(for: pushType), toBytes: Self.specLimit(pushType) + 1)
        #expect(reasons(Fixture.request(bytes: payload, pushType: pushType)) == [.payloadTooLarge])
    }

    @Test("an empty body is PayloadEmpty, and nothing else is reported about it")
    func emptyBody() {
        #expect(reasons(Fixture.request(bytes: [])) == [.payloadEmpty])
    }

    @Test("an over-size payload is still checked for its other rules")
    func overSizeStillChecked() {
        let payload = Fixture.padded(#"{"aps":{"mutable-content":1},"data":"%FILL%"}"#, toBytes: 4097)
        #expect(reasons(Fixture.request(bytes: payload)) == [.payloadTooLarge, .mutableContentWithoutAlert])
    }
}

/// The payload must be a JSON object with an `aps` dictionary, and keys appear once.
@Suite("NotificationValidator: document shape")
struct ValidatorDocumentShapeTests {
    @Test("a body that is not JSON is MalformedJSON", arguments: [
        #"{"aps":"#, #"{aps:{}}"#, #"{"aps":{}} trailing"#, #"{"aps":{"alert":"a"b"}}"#, "{\"aps\":{\"alert\":\"tab\there\"}}",
        "not json",
    ])
    func notJSON(body: String) {
        #expect(reasons(Fixture.request(body)) == [.malformedJSON])
    }

    @Test("a body with invalid UTF-8 is MalformedJSON")
    func invalidUTF8() {
        let bytes = Array(#"{"aps":{"alert":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8)
        #expect(reasons(Fixture.request(bytes: bytes)) == [.malformedJSON])
    }

    @Test("a JSON document that is not an object is PayloadNotObject", arguments: [
        "[]", #"[{"aps":{}}]"#, #""aps""#, "1", "null", "true",
    ])
    func notAnObject(body: String) {
        #expect(reasons(Fixture.request(body)) == [.payloadNotObject])
    }

    @Test("an object without aps is MissingAps", arguments: ["{}", #"{"Aps":{}}"#, #"{"data":{"aps":{}}}"#])
    func noAps(body: String) {
        #expect(reasons(Fixture.request(body)) == [.missingAps])
    }

    @Test("aps that is not a dictionary is ApsNotObject", arguments: [
        #"{"aps":"alert"}"#, #"{"aps":[]}"#, #"{"aps":1}"#, #"{"aps":null}"#, #"{"aps":true}"#,
    ])
    func apsNotDictionary(body: String) {
        #expect(reasons(Fixture.request(body)) == [.apsNotObject])
    }

    @Test("a custom key named aps is CustomKeyNamedAps")
    func customKeyNamedAps() {
        let payload = APNsPayload(alert: .body("hi"), custom: ["aps": .object(["alert": "sneaky"])])
        #expect(reasons(Fixture.request(bytes: payload.encoded())) == [.customKeyNamedAps])
    }

    @Test("two top-level aps dictionaries are CustomKeyNamedAps, not a generic duplicate")
    func twoApsDictionaries() {
        #expect(reasons(Fixture.request(#"{"aps":{"alert":"a"},"aps":{"alert":"b"}}"#)) == [.customKeyNamedAps])
    }

    @Test("a repeated custom key is DuplicateKey")
    func duplicateCustomKey() {
        #expect(reasons(Fixture.request(#"{"aps":{"alert":"hi"},"id":1,"id":2}"#)) == [.duplicateKey])
    }

    @Test("a repeated key inside aps is DuplicateKey")
    func duplicateApsKey() {
        #expect(reasons(Fixture.request(#"{"aps":{"alert":"hi","badge":1,"badge":2}}"#)) == [.duplicateKey])
    }

    @Test("distinct custom keys beside aps are fine")
    func distinctCustomKeys() {
        #expect(reasons(Fixture.request(#"{"aps":{"alert":"hi"},"id":1,"ID":2,"nested":{"aps":1}}"#)) == [])
    }

    @Test("an aps key of the wrong JSON type is WrongValueType", arguments: [
        (PushType.alert, #"{"aps":{"alert":1}}"#, "aps.alert"),
        (.alert, #"{"aps":{"alert":"hi","badge":"3"}}"#, "aps.badge"),
        (.alert, #"{"aps":{"alert":"hi","badge":1.5}}"#, "aps.badge"),
        (.alert, #"{"aps":{"alert":"hi","sound":true}}"#, "aps.sound"),
        (.alert, #"{"aps":{"alert":"hi","thread-id":7}}"#, "aps.thread-id"),
        (.alert, #"{"aps":{"alert":"hi","category":["a"]}}"#, "aps.category"),
        (.alert, #"{"aps":{"alert":"hi","content-available":true}}"#, "aps.content-available"),
        (.alert, #"{"aps":{"alert":"hi","mutable-content":"1"}}"#, "aps.mutable-content"),
        (.alert, #"{"aps":{"alert":"hi","target-content-id":1}}"#, "aps.target-content-id"),
        (.alert, #"{"aps":{"alert":"hi","interruption-level":1}}"#, "aps.interruption-level"),
        (.alert, #"{"aps":{"alert":"hi","relevance-score":"0.5"}}"#, "aps.relevance-score"),
        (.alert, #"{"aps":{"alert":"hi","filter-criteria":{}}}"#, "aps.filter-criteria"),
        (.alert, #"{"aps":{"alert":{"title":1}}}"#, "aps.alert.title"),
        (.alert, #"{"aps":{"alert":{"body":null}}}"#, "aps.alert.body"),
        (.alert, #"{"aps":{"alert":{"loc-key":"K","loc-args":"a"}}}"#, "aps.alert.loc-args"),
        (.alert, #"{"aps":{"alert":{"loc-key":"K","loc-args":[1]}}}"#, "aps.alert.loc-args"),
        (.alert, #"{"aps":{"alert":{"title-loc-key":"K","title-loc-args":[null]}}}"#, "aps.alert.title-loc-args"),
        (.alert, #"{"aps":{"alert":"hi","sound":{"critical":true,"name":"default","volume":1}}}"#, "aps.sound.critical"),
        (.alert, #"{"aps":{"alert":"hi","sound":{"critical":1,"name":2,"volume":1}}}"#, "aps.sound.name"),
        (.alert, #"{"aps":{"alert":"hi","sound":{"critical":1,"name":"default","volume":"1"}}}"#, "aps.sound.volume"),
        (.liveActivity, #"{"aps":{"timestamp":"1700000000","event":"update","content-state":{}}}"#, "aps.timestamp"),
        (.liveActivity, #"{"aps":{"timestamp":1700000000,"event":1,"content-state":{}}}"#, "aps.event"),
        (.liveActivity, #"{"aps":{"timestamp":1700000000,"event":"update","content-state":[]}}"#, "aps.content-state"),
        (.liveActivity, #"{"aps":{"timestamp":1,"event":"update","content-state":{},"stale-date":"x"}}"#, "aps.stale-date"),
        (.liveActivity, #"{"aps":{"timestamp":1,"event":"end","content-state":{},"dismissal-date":"x"}}"#, "aps.dismissal-date"),
        (.liveActivity, #"{"aps":{"timestamp":1,"event":"start","content-state":{},"alert":"go","attributes-type":1,"attributes":{}}}"#,
         "aps.attributes-type"),
        (.liveActivity, #"{"aps":{"timestamp":1,"event":"start","content-state":{},"alert":"go","attributes-type":"A","attributes":"x"}}"#,
         "aps.attributes"),
        (.liveActivity, #"{"aps":{"timestamp":1,"event":"start","content-state":{},"alert":"go","attributes-type":"A","attributes":{},"input-push-token":true}}"#,
         "aps.input-push-token"),
        (.liveActivity, #"{"aps":{"timestamp":1,"event":"start","content-state":{},"alert":"go","attributes-type":"A","attributes":{},"input-push-channel":1}}"#,
         "aps.input-push-channel"),
    ] as [(PushType, String, String)])
    func wrongValueType(pushType: PushType, body: String, path: String) throws {
        let violations = NotificationValidator.violations(in: Fixture.request(body, pushType: pushType))
        #expect(violations.map(\.reason) == [.wrongValueType])
        let violation = try #require(violations.first)
        #expect(violation.detail.hasPrefix(path + " "), "detail: \(violation.detail)")
    }

    @Test("an alert dictionary with every key of spec §4.3 has the right types")
    func alertDictionaryAllKeysValid() {
        let body = #"""
            {"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"L.png",
            "title-loc-key":"TK","title-loc-args":["a"],"subtitle-loc-key":"SK","subtitle-loc-args":["b","c"],
            "loc-key":"K","loc-args":["d","e"]}}}
            """#
        #expect(reasons(Fixture.request(body)) == [])
    }

    @Test("a built alert using loc-args validates clean")
    func builtLocArgsValid() {
        let payload = APNsPayload(alert: .content(AlertContent(
            titleLocKey: "TITLE", titleLocArgs: ["Ann"], subtitleLocKey: "SUB", subtitleLocArgs: [],
            locKey: "BODY", locArgs: ["3", "apples"]
        )))
        #expect(reasons(Fixture.request(bytes: payload.encoded())) == [])
    }

    @Test("keys APNs does not document inside aps are ignored")
    func undocumentedApsKeysIgnored() {
        #expect(reasons(Fixture.request(#"{"aps":{"alert":"hi","content-changed":true,"x-custom":[1]}}"#)) == [])
    }
}

/// Spec §4.2 and §4.4: the rules that tie `aps` keys to each other and to the push type.
@Suite("NotificationValidator: aps rules")
struct ValidatorApsRuleTests {
    @Test("a background push with an alert, sound or badge is BackgroundWithAlertSoundOrBadge", arguments: [
        #"{"aps":{"content-available":1,"alert":"hi"}}"#,
        #"{"aps":{"content-available":1,"sound":"default"}}"#,
        #"{"aps":{"content-available":1,"badge":0}}"#,
    ])
    func backgroundWithAlertSoundOrBadge(body: String) {
        #expect(reasons(Fixture.request(body, pushType: .background)) == [.backgroundWithAlertSoundOrBadge])
    }

    @Test("a background push with all three names each of them once")
    func backgroundWithAllThree() throws {
        let violations = NotificationValidator.violations(in: Fixture.request(
            #"{"aps":{"content-available":1,"alert":"hi","sound":"default","badge":1}}"#, pushType: .background
        ))
        #expect(violations.map(\.reason) == [.backgroundWithAlertSoundOrBadge])
        let detail = try #require(violations.first?.detail)
        #expect(detail.contains("aps.alert") && detail.contains("aps.sound") && detail.contains("aps.badge"))
    }

    @Test("a background push needs content-available = 1",
          arguments: [#"{"aps":{}}"#, #"{"aps":{"content-available":0}}"#, #"{"aps":{"content-available":2}}"#])
    func backgroundWithoutContentAvailable(body: String) {
        #expect(reasons(Fixture.request(body, pushType: .background)) == [.backgroundWithoutContentAvailable])
    }

    @Test("a background push with only content-available and custom keys is clean")
    func backgroundClean() {
        #expect(reasons(Fixture.request(#"{"aps":{"content-available":1},"sync":"inbox"}"#, pushType: .background)) == [])
    }

    @Test("an alert push may carry alert, sound and badge")
    func alertMayCarryAlertSoundBadge() {
        #expect(reasons(Fixture.request(#"{"aps":{"alert":"hi","sound":"default","badge":1}}"#)) == [])
    }

    @Test("a background push sent with priority 10 or 1 is BackgroundPriority", arguments: [APNsPriority.immediate, .lowPower])
    func backgroundWrongPriority(priority: APNsPriority) {
        let request = Fixture.request(#"{"aps":{"content-available":1}}"#, pushType: .background, priority: priority)
        #expect(reasons(request) == [.backgroundPriority])
    }

    @Test("a background push with priority 5, given or by default, is clean", arguments: [APNsPriority.powerConsiderate, nil])
    func backgroundPriorityFive(priority: APNsPriority?) {
        let request = Fixture.request(#"{"aps":{"content-available":1}}"#, pushType: .background, priority: priority)
        #expect(reasons(request) == [])
    }

    @Test("mutable-content without an alert is MutableContentWithoutAlert")
    func mutableContentWithoutAlert() {
        #expect(reasons(Fixture.request(#"{"aps":{"mutable-content":1,"sound":"default"}}"#)) == [.mutableContentWithoutAlert])
    }

    @Test("mutable-content with an alert is clean",
          arguments: [#"{"aps":{"mutable-content":1,"alert":"hi"}}"#, #"{"aps":{"mutable-content":1,"alert":{"title":"T"}}}"#])
    func mutableContentWithAlert(body: String) {
        #expect(reasons(Fixture.request(body)) == [])
    }

    @Test("mutable-content 0 needs no alert")
    func mutableContentZero() {
        #expect(reasons(Fixture.request(#"{"aps":{"mutable-content":0,"badge":1}}"#)) == [])
    }

    @Test("an undocumented interruption level is UnknownInterruptionLevel",
          arguments: ["urgent", "Critical", "timeSensitive", "time_sensitive", ""])
    func unknownInterruptionLevel(level: String) {
        let request = Fixture.request(#"{"aps":{"alert":"hi","interruption-level":"\#(level)"}}"#)
        #expect(reasons(request) == [.unknownInterruptionLevel])
    }

    @Test("each documented interruption level is clean", arguments: InterruptionLevel.all)
    func knownInterruptionLevel(level: InterruptionLevel) {
        let request = Fixture.request(#"{"aps":{"alert":"hi","interruption-level":"\#(level.rawValue)"}}"#)
        #expect(reasons(request) == [])
    }

    @Test("a relevance score outside 0…1 is RelevanceScoreOutOfRange", arguments: ["-0.1", "1.1", "-1", "2", "25", "1.0000001"])
    func relevanceScoreOutOfRange(score: String) {
        let request = Fixture.request(#"{"aps":{"alert":"hi","relevance-score":\#(score)}}"#)
        #expect(reasons(request) == [.relevanceScoreOutOfRange])
    }

    @Test("a relevance score from 0 to 1 inclusive is clean", arguments: ["0", "0.0", "0.5", "1", "1.0"])
    func relevanceScoreInRange(score: String) {
        let request = Fixture.request(#"{"aps":{"alert":"hi","relevance-score":\#(score)}}"#)
        #expect(reasons(request) == [])
    }

    @Test("a Live Activity may use any relevance score", arguments: ["25", "50", "100", "-3", "1.5"])
    func liveActivityRelevanceScoreUnbounded(score: String) {
        let request = Fixture.request(
            #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{},"relevance-score":\#(score)}}"#,
            pushType: .liveActivity
        )
        #expect(reasons(request) == [])
    }

    @Test("a non-finite relevance score cannot slip through as null", arguments: [Double.infinity, -.infinity, .nan])
    func nonFiniteRelevanceScore(score: Double) {
        let payload = APNsPayload(alert: .body("hi"), relevanceScore: score)
        #expect(reasons(Fixture.request(bytes: payload.encoded())) == [.wrongValueType])
    }

    @Test("a critical sound volume outside 0…1 is CriticalSoundVolumeOutOfRange", arguments: [-0.5, 1.5, 2, -0.0001])
    func criticalVolumeOutOfRange(volume: Double) {
        let payload = APNsPayload(alert: .body("hi"), sound: .critical(name: "default", volume: volume))
        #expect(reasons(Fixture.request(bytes: payload.encoded())) == [.criticalSoundVolumeOutOfRange])
    }

    @Test("a critical sound volume from 0 to 1 inclusive is clean", arguments: [0, 0.5, 1])
    func criticalVolumeInRange(volume: Double) {
        let payload = APNsPayload(alert: .body("hi"), sound: .critical(name: "default", volume: volume))
        #expect(reasons(Fixture.request(bytes: payload.encoded())) == [])
    }
}

/// Spec §4.6: Live Activity payloads.
@Suite("NotificationValidator: Live Activity")
struct ValidatorLiveActivityTests {
    static func liveActivity(_ aps: String, priority: APNsPriority? = nil,
                             destination: NotificationRequest.Destination = .device(token: Fixture.deviceToken)) -> NotificationRequest {
        Fixture.request(#"{"aps":{\#(aps)}}"#, pushType: .liveActivity, destination: destination, priority: priority)
    }

    static let startKeys = [
        #""timestamp":1700000000"#, #""event":"start""#, #""content-state":{"score":"0-0"}"#,
        #""attributes-type":"MatchAttributes""#, #""attributes":{"home":"Lions"}"#, #""alert":{"title":"Kick-off"}"#,
    ]

    @Test("an update with timestamp, event and content-state is clean", arguments: ["update", "end"])
    func completeUpdateClean(event: String) {
        #expect(reasons(Self.liveActivity(#""timestamp":1700000000,"event":"\#(event)","content-state":{"s":1}"#)) == [])
    }

    @Test("a Live Activity push without timestamp is LiveActivityMissingTimestamp")
    func missingTimestamp() {
        #expect(reasons(Self.liveActivity(#""event":"update","content-state":{}"#)) == [.liveActivityMissingTimestamp])
    }

    @Test("a Live Activity push without event is LiveActivityMissingEvent")
    func missingEvent() {
        #expect(reasons(Self.liveActivity(#""timestamp":1700000000,"content-state":{}"#)) == [.liveActivityMissingEvent])
    }

    @Test("an event other than start, update or end is LiveActivityUnknownEvent", arguments: ["pause", "Start", "UPDATE", "ended", ""])
    func unknownEvent(event: String) {
        let request = Self.liveActivity(#""timestamp":1700000000,"event":"\#(event)","content-state":{}"#)
        #expect(reasons(request) == [.liveActivityUnknownEvent])
    }

    @Test("a complete start is clean")
    func completeStartClean() {
        #expect(reasons(Self.liveActivity(Self.startKeys.joined(separator: ","))) == [])
    }

    @Test("a start without one of attributes-type, attributes, content-state or alert is LiveActivityIncompleteStart",
          arguments: ["attributes-type", "attributes", "content-state", "alert"])
    func incompleteStart(missingKey: String) throws {
        let aps = Self.startKeys.filter { !$0.hasPrefix("\"\(missingKey)\"") }.joined(separator: ",")
        let violations = NotificationValidator.violations(in: Self.liveActivity(aps))
        #expect(violations.map(\.reason) == [.liveActivityIncompleteStart])
        let detail = try #require(violations.first?.detail)
        #expect(detail.contains("aps.\(missingKey)"))
    }

    @Test("an update or end without content-state is LiveActivityMissingContentState", arguments: ["update", "end"])
    func missingContentState(event: String) {
        let request = Self.liveActivity(#""timestamp":1700000000,"event":"\#(event)""#)
        #expect(reasons(request) == [.liveActivityMissingContentState])
    }

    @Test("a Live Activity push with priority 1 is BadPriority")
    func priorityOneRejected() {
        let request = Self.liveActivity(#""timestamp":1,"event":"update","content-state":{}"#, priority: .lowPower)
        #expect(reasons(request) == [.badPriority])
    }

    @Test("a Live Activity push with priority 5 or 10 is clean", arguments: [APNsPriority.powerConsiderate, .immediate, nil])
    func priorityFiveOrTenClean(priority: APNsPriority?) {
        let request = Self.liveActivity(#""timestamp":1,"event":"update","content-state":{}"#, priority: priority)
        #expect(reasons(request) == [])
    }

    @Test("other push types are not held to the Live Activity rules")
    func otherTypesIgnoreLiveActivityRules() {
        #expect(reasons(Fixture.request(#"{"aps":{"alert":"hi","event":"pause"}}"#)) == [])
    }
}

/// Spec §1.2 and §1.3: the path's token and the headers that carry rules.
@Suite("NotificationValidator: headers and path")
struct ValidatorHeaderTests {
    static let body = #"{"aps":{"alert":"hi"}}"#

    @Test("an empty device token is MissingDeviceToken")
    func emptyToken() {
        #expect(reasons(Fixture.request(Self.body, destination: .device(token: ""))) == [.missingDeviceToken])
    }

    @Test("a non-hex or odd-length token is BadDeviceToken", arguments: ["xyz0", "a1b2c3d4-", "abc", "0", "é0"])
    func badToken(token: String) {
        #expect(reasons(Fixture.request(Self.body, destination: .device(token: token))) == [.badDeviceToken])
    }

    @Test("even-length hex tokens of any size are clean", arguments: [2, 64, 200])
    func anyEvenHexTokenClean(length: Int) {
        let token = String(String(repeating: "0123456789ABCDEF", count: 13).prefix(length))
        #expect(reasons(Fixture.request(Self.body, destination: .device(token: token))) == [])
    }

    @Test("a token that is not known yet is not checked")
    func unknownTokenNotChecked() {
        #expect(reasons(Fixture.request(Self.body, destination: .device(token: nil))) == [])
    }

    @Test("an empty topic is MissingTopic")
    func emptyTopic() {
        #expect(reasons(Fixture.request(Self.body, topic: "")) == [.missingTopic])
    }

    @Test("a topic that is not known yet is not checked")
    func unknownTopicNotChecked() {
        let request = NotificationRequest(pushType: .voip, topic: nil, payload: Array(Self.body.utf8))
        #expect(reasons(request) == [])
    }

    static let suffixedTypes = PushType.all.filter { !$0.topicSuffix.isEmpty }

    @Test("a suffixed push type sent to the bare bundle id is TopicSuffixMismatch", arguments: suffixedTypes)
    func suffixedTypeToBareTopic(pushType: PushType) {
        let payload = ValidatorPayloadSizeTests.template(for: pushType).replacingOccurrences(of: "%FILL%", with: "")
        #expect(reasons(Fixture.request(payload, pushType: pushType, topic: Fixture.bundleID)) == [.topicSuffixMismatch])
    }

    @Test("a suffixed push type sent to its own topic is clean", arguments: suffixedTypes)
    func suffixedTypeToOwnTopic(pushType: PushType) {
        let payload = ValidatorPayloadSizeTests.template(for: pushType).replacingOccurrences(of: "%FILL%", with: "")
        #expect(reasons(Fixture.request(payload, pushType: pushType, topic: Fixture.bundleID + pushType.topicSuffix)) == [])
    }

    @Test("an alert sent to a .voip topic is TopicSuffixMismatch")
    func alertToVoipTopic() throws {
        let violations = NotificationValidator.violations(in: Fixture.request(Self.body, topic: "com.example.app.voip"))
        #expect(violations.map(\.reason) == [.topicSuffixMismatch])
        #expect(try #require(violations.first).detail.contains("com.example.app.voip"))
    }

    @Test("an alert sent to any suffixed topic is TopicSuffixMismatch", arguments: suffixedTypes)
    func alertToSuffixedTopic(pushType: PushType) {
        #expect(reasons(Fixture.request(Self.body, topic: Fixture.bundleID + pushType.topicSuffix)) == [.topicSuffixMismatch])
    }

    @Test("a broadcast is published to the bare bundle id")
    func broadcastToBareBundleID() {
        let request = Fixture.request(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#,
                                      pushType: .liveActivity, destination: .broadcast, topic: Fixture.bundleID)
        #expect(reasons(request) == [])
    }

    @Test("a broadcast to a suffixed topic is TopicSuffixMismatch (APNs: TopicDisallowed)")
    func broadcastToSuffixedTopic() {
        let request = Fixture.request(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#,
                                      pushType: .liveActivity, destination: .broadcast,
                                      topic: Fixture.bundleID + PushType.liveActivity.topicSuffix)
        #expect(reasons(request) == [.topicSuffixMismatch])
    }

    @Test("a collapse id of 64 bytes is clean", arguments: [
        String(repeating: "c", count: 64), String(repeating: "é", count: 32), String(repeating: "😀", count: 16),
    ])
    func collapseID64Clean(collapseID: String) {
        #expect(reasons(Fixture.request(Self.body, collapseID: collapseID)) == [])
    }

    @Test("a collapse id of 65 bytes is BadCollapseId", arguments: [
        String(repeating: "c", count: 65), String(repeating: "é", count: 32) + "x", String(repeating: "😀", count: 16) + "x",
    ])
    func collapseID65Rejected(collapseID: String) {
        #expect(collapseID.utf8.count == 65)
        #expect(reasons(Fixture.request(Self.body, collapseID: collapseID)) == [.badCollapseID])
    }
}

/// The validator reports every violation at once, so a caller can fix them in one go.
@Suite("NotificationValidator: reporting")
struct ValidatorReportingTests {
    @Test("every broken rule is reported together, not only the first")
    func allViolationsTogether() {
        let payload = Fixture.padded(#"{"aps":{"alert":"hi","interruption-level":"loud"},"pad":"%FILL%"}"#, toBytes: 4097)
        let request = NotificationRequest(
            destination: .device(token: "xyz"), pushType: .background, topic: "com.example.app.voip",
            priority: .immediate, collapseID: String(repeating: "c", count: 65), payload: payload
        )
        let found = reasons(request)
        let expected: [Violation.Reason] = [
            .badDeviceToken, .topicSuffixMismatch, .badCollapseID, .backgroundPriority, .payloadTooLarge,
            .backgroundWithAlertSoundOrBadge, .backgroundWithoutContentAvailable, .unknownInterruptionLevel,
        ]
        #expect(found.count == expected.count)
        #expect(Set(found) == Set(expected))
    }

    @Test("header violations come first, then the body's")
    func headersBeforeBody() {
        let request = Fixture.request(#"{"aps":{"mutable-content":1}}"#, destination: .device(token: ""), topic: "")
        #expect(reasons(request) == [.missingDeviceToken, .missingTopic, .mutableContentWithoutAlert])
    }

    @Test("a body that is not JSON still gets its headers checked")
    func malformedBodyStillChecksHeaders() {
        let request = Fixture.request("{", destination: .device(token: "abc"), collapseID: String(repeating: "c", count: 65))
        #expect(reasons(request) == [.badDeviceToken, .badCollapseID, .malformedJSON])
    }

    @Test("several aps rules broken at once are each reported")
    func severalApsRules() {
        let request = Fixture.request(
            #"{"aps":{"mutable-content":1,"badge":"x","interruption-level":"loud","relevance-score":7,"sound":{"critical":1,"name":"a","volume":9}},"k":1,"k":2}"#
        )
        #expect(Set(reasons(request)) == [
            .duplicateKey, .wrongValueType, .mutableContentWithoutAlert, .unknownInterruptionLevel,
            .relevanceScoreOutOfRange, .criticalSoundVolumeOutOfRange,
        ])
        #expect(reasons(request).count == 6)
    }

    @Test("a clean request has no violations")
    func cleanRequest() {
        let request = NotificationRequest(
            destination: .device(token: Fixture.deviceToken), pushType: .alert, topic: Fixture.bundleID,
            priority: .powerConsiderate, collapseID: "score-update", payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        )
        #expect(NotificationValidator.violations(in: request).isEmpty)
    }
}
