import APNsCore
import Testing

/// Spec §1.4: the eleven `apns-push-type` values, their topic suffixes, default priorities and
/// payload limits (§4.1).
@Suite("PushType")
struct PushTypeTests {
    /// The §1.4 table: push type, header value, `apns-topic` suffix after the bundle id.
    static let specTable: [(PushType, String, String)] = [
        (.alert, "alert", ""),
        (.background, "background", ""),
        (.voip, "voip", ".voip"),
        (.complication, "complication", ".complication"),
        (.fileProvider, "fileprovider", ".pushkit.fileprovider"),
        (.mdm, "mdm", ""),
        (.location, "location", ".location-query"),
        (.liveActivity, "liveactivity", ".push-type.liveactivity"),
        (.pushToTalk, "pushtotalk", ".voip-ptt"),
        (.widgets, "widgets", ".push-type.widgets"),
        (.controls, "controls", ".push-type.controls"),
    ]

    static let suffixedTypes = PushType.all.filter { !$0.topicSuffix.isEmpty }

    @Test("all lists exactly the eleven push types of the specification")
    func allListsElevenTypes() {
        #expect(PushType.all.count == 11)
        #expect(Set(PushType.all) == Set(Self.specTable.map(\.0)))
    }

    @Test("header value and topic suffix match the spec table", arguments: specTable)
    func headerValueAndSuffix(pushType: PushType, rawValue: String, suffix: String) {
        #expect(pushType.rawValue == rawValue)
        #expect(pushType.description == rawValue)
        #expect(pushType.topicSuffix == suffix)
    }

    @Test("every header value reads back as its push type", arguments: specTable)
    func readsHeaderValue(pushType: PushType, rawValue: String, suffix: String) {
        #expect(PushType(rawValue: rawValue) == pushType)
    }

    @Test("an undocumented or differently cased header value reads as nil",
          arguments: ["", "Alert", "liveActivity", "LiveActivity", "push", "voip ", "file-provider"])
    func unknownHeaderValueIsNil(rawValue: String) {
        #expect(PushType(rawValue: rawValue) == nil)
    }

    @Test("background defaults to priority 5; Apple calls 10 an error")
    func backgroundDefaultsToPriorityFive() {
        #expect(PushType.background.defaultPriority == .powerConsiderate)
        #expect(PushType.background.defaultPriority.rawValue == 5)
    }

    @Test("every type but background defaults to priority 10", arguments: PushType.all.filter { $0 != .background })
    func othersDefaultToPriorityTen(pushType: PushType) {
        #expect(pushType.defaultPriority == .immediate)
    }

    @Test("VoIP payloads may be 5120 bytes")
    func voipLimitIs5120() {
        #expect(PushType.voip.payloadLimit == 5120)
        #expect(PushType.largePayloadLimit == 5120)
    }

    @Test("every type but VoIP is limited to 4096 bytes", arguments: PushType.all.filter { $0 != .voip })
    func othersLimitIs4096(pushType: PushType) {
        #expect(pushType.payloadLimit == 4096)
        #expect(PushType.standardPayloadLimit == 4096)
    }

    // MARK: Topic

    @Test("a suffixed type accepts <bundle id><suffix>", arguments: suffixedTypes)
    func suffixedTypeAcceptsItsTopic(pushType: PushType) {
        #expect(pushType.topicMismatch("com.example.app" + pushType.topicSuffix) == nil)
    }

    @Test("a suffixed type rejects the bare bundle id", arguments: suffixedTypes)
    func suffixedTypeRejectsBareBundleID(pushType: PushType) {
        #expect(pushType.topicMismatch("com.example.app") != nil)
    }

    @Test("a suffixed type rejects a topic that is only the suffix", arguments: suffixedTypes)
    func suffixedTypeRejectsSuffixAlone(pushType: PushType) {
        #expect(pushType.topicMismatch(pushType.topicSuffix) != nil)
    }

    @Test("a suffixed type rejects every other type's suffix", arguments: suffixedTypes)
    func suffixedTypeRejectsOtherSuffixes(pushType: PushType) {
        for other in Self.suffixedTypes where other != pushType {
            #expect(pushType.topicMismatch("com.example.app" + other.topicSuffix) != nil, "topic of \(other)")
        }
    }

    @Test("alert and background accept the bare bundle id", arguments: [PushType.alert, .background])
    func bareTypesAcceptBundleID(pushType: PushType) {
        #expect(pushType.topicMismatch("com.example.app") == nil)
    }

    @Test("alert and background reject a topic carrying any type's suffix", arguments: [PushType.alert, .background])
    func bareTypesRejectSuffixedTopics(pushType: PushType) {
        for suffixed in Self.suffixedTypes {
            #expect(pushType.topicMismatch("com.example.app" + suffixed.topicSuffix) != nil, "topic of \(suffixed)")
        }
    }

    @Test("mdm topics come from the MDM certificate and are not checked",
          arguments: ["com.apple.mgmt.External.0f1e2d3c", "com.example.app.voip", "anything"])
    func mdmTopicIsNotChecked(topic: String) {
        #expect(PushType.mdm.topicMismatch(topic) == nil)
    }
}

/// Spec §1.3: `apns-priority` is 10, 5 or 1.
@Suite("APNsPriority")
struct APNsPriorityTests {
    @Test("the documented priorities are exactly 10, 5 and 1")
    func documentedPriorities() {
        #expect(APNsPriority.all.map(\.rawValue) == [10, 5, 1])
        #expect(APNsPriority.immediate.rawValue == 10)
        #expect(APNsPriority.powerConsiderate.rawValue == 5)
        #expect(APNsPriority.lowPower.rawValue == 1)
    }

    @Test("10, 5 and 1 read back as their priority", arguments: [10, 5, 1])
    func readsDocumentedPriority(value: Int) {
        #expect(APNsPriority(rawValue: value)?.rawValue == value)
    }

    @Test("any other number is not a priority", arguments: [-1, 0, 2, 3, 4, 6, 7, 8, 9, 11, 100])
    func rejectsOtherNumbers(value: Int) {
        #expect(APNsPriority(rawValue: value) == nil)
    }
}

/// Spec §1.3: `apns-expiration` is UNIX seconds; 0 means a single delivery attempt.
@Suite("APNsExpiration")
struct APNsExpirationTests {
    @Test("unspecified sends no header")
    func unspecifiedSendsNoHeader() {
        #expect(APNsExpiration.unspecified.headerValue == nil)
    }

    @Test("immediately is written as 0")
    func immediatelyIsZero() {
        #expect(APNsExpiration.immediately.headerValue == "0")
    }

    @Test("a UNIX time is written as decimal seconds")
    func unixTimeIsDecimalSeconds() {
        #expect(APNsExpiration.at(unixSeconds: 1_700_000_000).headerValue == "1700000000")
    }

    @Test("0 reads as immediately")
    func zeroReadsAsImmediately() {
        #expect(APNsExpiration(headerValue: "0") == .immediately)
    }

    @Test("a positive number of seconds reads as that time")
    func secondsReadAsTime() {
        #expect(APNsExpiration(headerValue: "1700000000") == .at(unixSeconds: 1_700_000_000))
    }

    @Test("a negative, fractional or non-numeric value is not an expiration",
          arguments: ["", "-1", "1.5", "soon", "1700000000s", " 1", "0x10"])
    func rejectsInvalidHeader(value: String) {
        #expect(APNsExpiration(headerValue: value) == nil)
    }
}

/// Spec §4.2 and §4.6: the closed vocabularies inside `aps`.
@Suite("Payload vocabularies")
struct PayloadVocabularyTests {
    @Test("interruption levels are passive, active, time-sensitive and critical")
    func interruptionLevels() {
        #expect(InterruptionLevel.all.map(\.rawValue) == ["passive", "active", "time-sensitive", "critical"])
        #expect(InterruptionLevel(rawValue: "time-sensitive") == .timeSensitive)
        #expect(InterruptionLevel(rawValue: "timeSensitive") == nil)
    }

    @Test("Live Activity events are start, update and end")
    func liveActivityEvents() {
        #expect(LiveActivityEvent.all.map(\.rawValue) == ["start", "update", "end"])
        #expect(LiveActivityEvent(rawValue: "end") == .end)
        #expect(LiveActivityEvent(rawValue: "pause") == nil)
    }
}
