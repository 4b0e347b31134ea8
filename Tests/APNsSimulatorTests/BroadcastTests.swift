import APNsCore
import APNsSimulator
import Testing

@Suite("Broadcast channels and publishing")
struct BroadcastTests {
    /// A simulator with a channel-management connection and a device connection.
    struct BroadcastHarness {
        let base: SimulatorHarness
        let management: SimulatedConnection

        init(_ configure: (inout SimulatorConfiguration) throws -> Void = { _ in }) throws {
            base = try SimulatorHarness(configure)
            management = base.simulator.makeConnection(port: .channelManagement, clientCertificateTopics: nil)
        }

        func manage(_ method: String, _ path: String = "/1/apps/\(Fixture.topic)/channels",
                    headers: [String: String] = [:], body: String = "") throws -> SimulatorResponse {
            var all = [HTTPHeader("authorization", try base.devAuthorization())]
            all += headers.sorted { $0.key < $1.key }.map { HTTPHeader($0.key, $0.value) }
            return try base.send(SimulatorRequest(method: method, path: path, headers: all, body: Array(body.utf8)), on: management)
        }

        func createChannel(policy: Int = 1) throws -> String {
            let response = try manage("POST", body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#)
            #expect(response.status == 201)
            return try #require(response.header("apns-channel-id"))
        }

        func publish(_ channelID: String?, _ changes: [String: String?] = [:], bundleID: String = Fixture.topic,
                     body: [UInt8] = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8)) throws -> SimulatorResponse {
            var headers: [String: String?] = [
                "authorization": try base.devAuthorization(), "apns-push-type": "liveactivity", "apns-priority": "10",
                "apns-expiration": "0", "apns-channel-id": channelID,
            ]
            headers.merge(changes) { $1 }
            let list = headers.compactMap { name, value in value.map { HTTPHeader(name, $0) } }.sorted { $0.name < $1.name }
            return try base.send(SimulatorRequest(method: "POST", path: "/4/broadcasts/apps/\(bundleID)", headers: list, body: body))
        }
    }

    @Test("creating a channel is 201 with a base64 apns-channel-id and the echoed apns-request-id")
    func createChannel() throws {
        let harness = try BroadcastHarness()
        let requestID = "6f2c6ab1-6a3c-4a2b-9c2e-0d7f1a1b2c3d"
        let response = try harness.manage("POST", headers: ["apns-request-id": requestID],
                                          body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        #expect(response.status == 201)
        #expect(response.header("apns-request-id") == requestID)
        let id = try #require(response.header("apns-channel-id"))
        #expect(id.hasSuffix("=="))
        #expect(id.count == 24)
        #expect(response.body.isEmpty)
    }

    @Test("without apns-request-id one is generated")
    func requestIDIsGenerated() throws {
        let response = try BroadcastHarness().manage("GET", "/1/apps/\(Fixture.topic)/all-channels")
        #expect(NotificationID(try #require(response.header("apns-request-id"))) != nil)
    }

    @Test("reading a channel returns its storage policy and push type")
    func readChannel() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel(policy: 0)
        let response = try harness.manage("GET", headers: ["apns-channel-id": id])
        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json")
        #expect(response.json == ["message-storage-policy": 0, "push-type": "LiveActivity"])
    }

    @Test("deleting a channel is 204, and then it is not registered")
    func deleteChannel() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel()
        #expect(try harness.manage("DELETE", headers: ["apns-channel-id": id]).status == 204)
        #expect(try harness.manage("GET", headers: ["apns-channel-id": id]).reason == "ChannelNotRegistered")
        #expect(try harness.manage("DELETE", headers: ["apns-channel-id": id]).reason == "ChannelNotRegistered")
    }

    @Test("listing returns the app's channels only")
    func listChannels() throws {
        let harness = try BroadcastHarness()
        let first = try harness.createChannel()
        let second = try harness.createChannel()
        _ = try harness.manage("POST", "/1/apps/com.example.other/channels", body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        let response = try harness.manage("GET", "/1/apps/\(Fixture.topic)/all-channels")
        #expect(response.status == 200)
        #expect(response.json == ["channels": .array([first, second].sorted().map(JSONValue.string))])
    }

    @Test("bad channel-creation bodies get their reasons", arguments: [
        ("", "PayloadEmpty"),
        ("{not json", "BadRequestPayload"),
        ("[1]", "BadRequestPayload"),
        (#"{"message-storage-policy":1,"push-type":"LiveActivity","color":"red"}"#, "BadRequestParams"),
        (#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#, "BadRequestParams"),
        (#"{"push-type":"LiveActivity"}"#, "BadRequestParams"),
        (#"{"message-storage-policy":1}"#, "MissingPushType"),
        (#"{"message-storage-policy":1,"push-type":"alert"}"#, "InvalidPushType"),
    ])
    func badCreation(body: String, reason: String) throws {
        let response = try BroadcastHarness().manage("POST", body: body)
        #expect(response.status == 400)
        #expect(response.reason == reason)
        #expect(response.header("apns-request-id") != nil)
    }

    @Test("over the per-app limit creation is 400 CannotCreateChannelConfig")
    func channelLimit() throws {
        let harness = try BroadcastHarness { $0.channelsPerApp = 2 }
        _ = try harness.createChannel()
        _ = try harness.createChannel()
        #expect(try harness.manage("POST", body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#).reason
            == "CannotCreateChannelConfig")
    }

    @Test("reading without or with a malformed channel id is MissingChannelId or BadChannelId", arguments: [
        ([:], "MissingChannelId"), (["apns-channel-id": "not base64!"], "BadChannelId"),
        (["apns-channel-id": String(repeating: "QUFB", count: 30)], "BadChannelId"),
    ] as [([String: String], String)])
    func badChannelID(headers: [String: String], reason: String) throws {
        #expect(try BroadcastHarness().manage("GET", headers: headers).reason == reason)
    }

    @Test("the channel API answers 405 for other methods and 404 for other paths")
    func channelRoutes() throws {
        let harness = try BroadcastHarness()
        #expect(try harness.manage("PUT").reason == "MethodNotAllowed")
        #expect(try harness.manage("POST", "/1/apps/\(Fixture.topic)/all-channels").reason == "MethodNotAllowed")
        #expect(try harness.manage("GET", "/1/apps/\(Fixture.topic)/channels/abc").reason == "BadPath")
        #expect(try harness.manage("POST", "/3/device/\(Fixture.deviceToken)").reason == "BadPath")
    }

    @Test("the channel API authenticates like device pushes")
    func channelAPIAuthenticates() throws {
        let harness = try BroadcastHarness()
        let response = try harness.base.send(SimulatorRequest(method: "GET", path: "/1/apps/\(Fixture.topic)/all-channels",
                                                              headers: [], body: []), on: harness.management)
        #expect(response.status == 403)
        #expect(response.reason == "MissingProviderToken")
    }

    @Test("a client certificate without the bundle id is 403 TopicMismatch")
    func certificateTopicMismatch() throws {
        let harness = try BroadcastHarness()
        let connection = harness.base.simulator.makeConnection(port: .channelManagement, clientCertificateTopics: ["com.example.other"])
        let response = try harness.base.send(SimulatorRequest(method: "GET", path: "/1/apps/\(Fixture.topic)/all-channels",
                                                              headers: [], body: []), on: connection)
        #expect(response.reason == "TopicMismatch")
    }

    @Test("publishing on a channel is 200 with apns-request-id and apns-unique-id, and lands in the inbox")
    func publish() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel()
        let requestID = "6f2c6ab1-6a3c-4a2b-9c2e-0d7f1a1b2c3d"
        let response = try harness.publish(id, ["apns-request-id": requestID, "apns-expiration": "1900000000"])
        #expect(response.status == 200)
        #expect(response.header("apns-request-id") == requestID)
        #expect(response.header("apns-unique-id") != nil)
        let delivered = try #require(harness.base.simulator.inbox().first)
        #expect(delivered.channelID == id)
        #expect(delivered.token == nil)
        #expect(delivered.expiration == 1_900_000_000)
    }

    @Test("publishing checks each required header", arguments: [
        (["apns-channel-id": nil], "MissingChannelId"),
        (["apns-channel-id": "%%%"], "BadChannelId"),
        (["apns-push-type": nil], "MissingPushType"),
        (["apns-push-type": "alert"], "InvalidPushType"),
        (["apns-priority": nil], "BadPriority"),
        (["apns-priority": "7"], "BadPriority"),
        (["apns-expiration": nil], "BadExpirationDate"),
        (["apns-request-id": "nope"], "BadMessageId"),
        (["authorization": nil], "MissingProviderToken"),
    ] as [([String: String?], String)])
    func publishHeaderChecks(changes: [String: String?], reason: String) throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel()
        #expect(try harness.publish(id, changes).reason == reason)
    }

    @Test("the push type is matched in any case, as Apple spells it three ways")
    func publishPushTypeAnyCase() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel()
        #expect(try harness.publish(id, ["apns-push-type": "LiveActivity"]).status == 200)
    }

    @Test("an unknown channel, or another app's, is 400 ChannelNotRegistered")
    func publishUnknownChannel() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel()
        #expect(try harness.publish("dHN0LXNyY2gtY2hubA==").reason == "ChannelNotRegistered")
        #expect(try harness.publish(id, bundleID: "com.example.other").reason == "ChannelNotRegistered")
    }

    @Test("a non-zero expiration on a no-storage channel is 400 BadExpirationDate")
    func publishExpirationOnNoStorageChannel() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel(policy: 0)
        #expect(try harness.publish(id, ["apns-expiration": "1900000000"]).reason == "BadExpirationDate")
        #expect(try harness.publish(id, ["apns-expiration": "0"]).status == 200)
    }

    @Test("a bundle id with a push-type suffix is 400 TopicDisallowed")
    func publishSuffixedBundle() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel()
        #expect(try harness.publish(id, bundleID: Fixture.topic + ".push-type.liveactivity").reason == "TopicDisallowed")
    }

    @Test("broadcast payloads may carry 5120 bytes, not 5121")
    func publishPayloadLimit() throws {
        let harness = try BroadcastHarness()
        let id = try harness.createChannel()
        #expect(try harness.publish(id, body: [UInt8](repeating: 0x20, count: 5120)).status == 200)
        let response = try harness.publish(id, body: [UInt8](repeating: 0x20, count: 5121))
        #expect(response.status == 413)
        #expect(response.reason == "PayloadTooLarge")
        #expect(try harness.publish(id, body: []).reason == "PayloadEmpty")
    }

    @Test("publishing with another method is 405, without a bundle id 404")
    func publishRoutes() throws {
        let harness = try BroadcastHarness()
        let get = SimulatorRequest(method: "GET", path: "/4/broadcasts/apps/\(Fixture.topic)", headers: [], body: [])
        #expect(try harness.base.send(get).reason == "MethodNotAllowed")
        #expect(try harness.publish(nil, bundleID: "").reason == "BadPath")
    }
}
