import APNsCore
import Testing

/// A payload built in the process is validated on the tree its bytes were written from: the tree
/// must say exactly what the bytes say, and the validator must find the same violations either way.
@Suite("Written payloads")
struct WrittenPayloadTests {
    /// Payloads that set every kind of key, some of them breaking rules on purpose.
    static let payloads: [APNsPayload] = [
        APNsPayload(),
        APNsPayload(alert: .body("Hello \"world\"\n")),
        APNsPayload(
            alert: .content(AlertContent(title: "T", subtitle: "S", body: "B", launchImage: "L", titleLocKey: "TK",
                                         titleLocArgs: ["a"], subtitleLocKey: "SK", subtitleLocArgs: [],
                                         locKey: "K", locArgs: ["x", "y"])),
            badge: 2, sound: .named("default"), threadID: "t", category: "C", mutableContent: true,
            targetContentID: "w", interruptionLevel: .timeSensitive, relevanceScore: 0.25, filterCriteria: "f",
            custom: ["order": .object(["id": 7, "tags": ["a", nil, true]]), "price": 1.5]
        ),
        APNsPayload(sound: .critical(name: "siren.caf", volume: 1.5), relevanceScore: .nan),
        APNsPayload(sound: .critical(name: "siren.caf", volume: -.infinity), relevanceScore: 2),
        APNsPayload(alert: .body("hi"), contentAvailable: true, custom: ["aps": .object([:]), "k": 1, "k ": 2]),
        APNsPayload(custom: JSONObject([.init("dup", 1), .init("dup", 2)])),
        APNsPayload(mutableContent: true),
        APNsPayload(liveActivity: LiveActivityContent(
            timestamp: 1_700_000_000, event: .start, contentState: ["score": "0-0"], staleDate: 1_700_000_600,
            dismissalDate: 1_700_000_900, attributesType: "MatchAttributes", attributes: ["home": "Lions"],
            inputPushToken: true, inputPushChannel: "channel-1"
        )),
        APNsPayload(liveActivity: LiveActivityContent(timestamp: 1_700_000_000, event: .update)),
    ]

    @Test("the bytes parse back to the document, with non-finite numbers as null", arguments: payloads)
    func bytesParseToDocument(payload: APNsPayload) throws {
        let written = WrittenPayload(payload.document)
        #expect(try JSONParser.parse(written.bytes) == .object(written.document))
        #expect(written.bytes == payload.encoded())
    }

    @Test("checking the written tree finds what parsing the bytes finds, for every push type",
          arguments: payloads, PushType.all)
    func treeAndBytesAgree(payload: APNsPayload, pushType: PushType) {
        let written = WrittenPayload(payload.document)
        let request = Fixture.request(bytes: written.bytes, pushType: pushType)
        #expect(NotificationValidator.violations(in: request, payload: written) == NotificationValidator.violations(in: request))
    }

    @Test("the size rule counts the written bytes")
    func sizeCountsBytes() {
        let written = WrittenPayload(["aps": .object(["alert": .string(String(repeating: "é", count: 2100))])])
        let request = Fixture.request(bytes: written.bytes)
        #expect(NotificationValidator.violations(in: request, payload: written).map(\.reason) == [.payloadTooLarge])
    }

    @Test("a document that is not a payload is reported as one would be from bytes")
    func documentShape() {
        for document: JSONObject in [[:], ["aps": "text"], JSONObject([.init("aps", .object([:])), .init("aps", .object([:]))])] {
            let written = WrittenPayload(document)
            let request = Fixture.request(bytes: written.bytes)
            #expect(NotificationValidator.violations(in: request, payload: written) == NotificationValidator.violations(in: request))
        }
    }
}
