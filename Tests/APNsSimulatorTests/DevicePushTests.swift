import APNsCore
import APNsSimulator
import Testing

@Suite("Device push: answers and reasons")
struct DevicePushTests {
    @Test("a valid push is answered 200 with its apns-id, an apns-unique-id (sandbox) and no body")
    func validPushIsAccepted() throws {
        let harness = try SimulatorHarness()
        let id = "6f2c6ab1-6a3c-4a2b-9c2e-0d7f1a1b2c3d"
        let response = try harness.push(["apns-id": id])
        #expect(response.status == 200)
        #expect(response.header("apns-id") == id)
        #expect(NotificationID(try #require(response.header("apns-unique-id"))) != nil)
        #expect(response.body.isEmpty)
    }

    @Test("without apns-id the simulator generates one, in upper case as APNs has been seen doing")
    func apnsIDIsGenerated() throws {
        let response = try SimulatorHarness().push()
        let id = try #require(response.header("apns-id"))
        #expect(NotificationID(id) != nil)
        #expect(id == id.uppercased())
    }

    @Test("an apns-id in upper case is accepted and echoed as sent")
    func upperCaseApnsIDIsAccepted() throws {
        let id = "6F2C6AB1-6A3C-4A2B-9C2E-0D7F1A1B2C3D"
        let response = try SimulatorHarness().push(["apns-id": id])
        #expect(response.status == 200)
        #expect(response.header("apns-id") == id)
    }

    @Test("production answers without apns-unique-id")
    func productionOmitsUniqueID() throws {
        let response = try SimulatorHarness { $0.environment = .production }.push()
        #expect(response.status == 200)
        #expect(response.header("apns-unique-id") == nil)
    }

    @Test("a rejection carries content-type JSON, the apns-id and {\"reason\":…}")
    func rejectionShape() throws {
        let id = "6f2c6ab1-6a3c-4a2b-9c2e-0d7f1a1b2c3d"
        let response = try SimulatorHarness().push(["apns-id": id], body: [])
        #expect(response.status == 400)
        #expect(response.header("content-type") == "application/json")
        #expect(response.header("apns-id") == id)
        #expect(response.body == Array(#"{"reason":"PayloadEmpty"}"#.utf8))
    }

    @Test("a method other than POST is 405 MethodNotAllowed")
    func methodNotAllowed() throws {
        let response = try SimulatorHarness().push(method: "GET")
        #expect(response.status == 405)
        #expect(response.reason == "MethodNotAllowed")
    }

    @Test("a path APNs does not serve is 404 BadPath", arguments: ["/3/device/\(Fixture.deviceToken)/extra", "/3/devices/ab", "/2/device/ab"])
    func badPath(path: String) throws {
        let response = try SimulatorHarness().push(path: path)
        #expect(response.status == 404)
        #expect(response.reason == "BadPath")
    }

    @Test("an empty token is 400 MissingDeviceToken")
    func missingDeviceToken() throws {
        let response = try SimulatorHarness().push(token: "")
        #expect(response.status == 400)
        #expect(response.reason == "MissingDeviceToken")
    }

    @Test("a token that is not even-length hex is 400 BadDeviceToken", arguments: ["xyz0", "abc", "ab cd"])
    func badDeviceToken(token: String) throws {
        let response = try SimulatorHarness().push(token: token)
        #expect(response.status == 400)
        #expect(response.reason == "BadDeviceToken")
    }

    @Test("a repeated APNs header is 400 DuplicateHeaders")
    func duplicateHeaders() throws {
        let harness = try SimulatorHarness()
        var headers = try harness.pushHeaders()
        headers.append(HTTPHeader("apns-topic", Fixture.topic))
        let response = try harness.send(SimulatorRequest(method: "POST", path: "/3/device/\(Fixture.deviceToken)",
                                                         headers: headers, body: Fixture.payload))
        #expect(response.status == 400)
        #expect(response.reason == "DuplicateHeaders")
    }

    @Test("unknown headers are ignored, even repeated")
    func unknownHeadersAreIgnored() throws {
        let harness = try SimulatorHarness()
        let headers = try harness.pushHeaders() + [
            HTTPHeader("user-agent", "test"), HTTPHeader("content-type", "application/json"), HTTPHeader("x-trace", "1"),
            HTTPHeader("x-trace", "2"),
        ]
        let response = try harness.send(SimulatorRequest(method: "POST", path: "/3/device/\(Fixture.deviceToken)",
                                                         headers: headers, body: Fixture.payload))
        #expect(response.status == 200)
    }

    @Test("header values APNs rejects, each with its reason", arguments: [
        ("apns-push-type", "banner", "InvalidPushType"),
        ("apns-priority", "7", "BadPriority"),
        ("apns-priority", "high", "BadPriority"),
        ("apns-expiration", "tomorrow", "BadExpirationDate"),
        ("apns-expiration", "-1", "BadExpirationDate"),
        ("apns-id", "not-a-uuid", "BadMessageId"),
        ("apns-collapse-id", String(repeating: "c", count: 65), "BadCollapseId"),
    ])
    func badHeaderValue(header: String, value: String, reason: String) throws {
        let response = try SimulatorHarness().push([header: value])
        #expect(response.status == 400)
        #expect(response.reason == reason)
    }

    @Test("push types are matched in any case")
    func pushTypeIsCaseInsensitive() throws {
        #expect(try SimulatorHarness().push(["apns-push-type": "Alert"]).status == 200)
    }

    @Test("a collapse id of exactly 64 bytes is accepted")
    func collapseIDAtLimit() throws {
        #expect(try SimulatorHarness().push(["apns-collapse-id": String(repeating: "c", count: 64)]).status == 200)
    }

    @Test("no apns-topic on a token connection is 400 MissingTopic")
    func missingTopic() throws {
        let response = try SimulatorHarness().push(["apns-topic": nil])
        #expect(response.status == 400)
        #expect(response.reason == "MissingTopic")
    }

    @Test("a topic that is not a bundle id is 400 BadTopic", arguments: ["com..example", "com.example app", ".com.example"])
    func badTopic(topic: String) throws {
        let response = try SimulatorHarness().push(["apns-topic": topic])
        #expect(response.status == 400)
        #expect(response.reason == "BadTopic")
    }

    @Test("a push type sent to another type's topic is 400 TopicDisallowed", arguments: [
        ("voip", Fixture.topic), ("alert", Fixture.topic + ".voip"), ("liveactivity", Fixture.topic),
    ])
    func topicDisallowedForPushType(pushType: String, topic: String) throws {
        let response = try SimulatorHarness().push(["apns-push-type": pushType, "apns-topic": topic])
        #expect(response.status == 400)
        #expect(response.reason == "TopicDisallowed")
    }

    @Test("an empty body is 400 PayloadEmpty")
    func payloadEmpty() throws {
        let response = try SimulatorHarness().push(body: [])
        #expect(response.status == 400)
        #expect(response.reason == "PayloadEmpty")
    }

    @Test("4096 bytes pass and 4097 are 413 PayloadTooLarge")
    func payloadLimit() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push(body: [UInt8](repeating: 0x20, count: 4096)).status == 200)
        let response = try harness.push(body: [UInt8](repeating: 0x20, count: 4097))
        #expect(response.status == 413)
        #expect(response.reason == "PayloadTooLarge")
    }

    @Test("voip pushes may carry 5120 bytes, not 5121")
    func voipPayloadLimit() throws {
        let harness = try SimulatorHarness()
        let voip: [String: String?] = ["apns-push-type": "voip", "apns-topic": Fixture.topic + ".voip"]
        #expect(try harness.push(voip, body: [UInt8](repeating: 0x20, count: 5120)).status == 200)
        #expect(try harness.push(voip, body: [UInt8](repeating: 0x20, count: 5121)).status == 413)
    }

    @Test("without apns-push-type the type follows the topic: a .voip topic gets the voip limit")
    func pushTypeInferredFromTopic() throws {
        let response = try SimulatorHarness().push(["apns-push-type": nil, "apns-topic": Fixture.topic + ".voip"],
                                                   body: [UInt8](repeating: 0x20, count: 5000))
        #expect(response.status == 200)
    }

    @Test("checks run in the documented order: the earliest failing check answers", arguments: [
        // (method, token, changes, body, reason)
        ("GET", "zz", ["apns-topic": nil], [], "MethodNotAllowed"),
        ("POST", "zz", ["apns-priority": "7"], [], "BadDeviceToken"),
        ("POST", Fixture.deviceToken, ["apns-priority": "7", "authorization": nil], [], "BadPriority"),
        ("POST", Fixture.deviceToken, ["authorization": nil, "apns-topic": nil], [], "MissingProviderToken"),
        ("POST", Fixture.deviceToken, ["apns-topic": nil], [], "MissingTopic"),
    ] as [(String, String, [String: String?], [UInt8], String)])
    func checkOrder(method: String, token: String, changes: [String: String?], body: [UInt8], reason: String) throws {
        let response = try SimulatorHarness().push(token: token, changes, body: body, method: method)
        #expect(response.reason == reason)
    }

    @Test("a path outside every API is 404 BadPath, and 405 for a method other than POST")
    func unknownPath() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push(path: "/health").reason == "BadPath")
        #expect(try harness.push(method: "GET", path: "/health").reason == "MethodNotAllowed")
    }
}
