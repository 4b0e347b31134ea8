import APNsClient
import APNsCore
import PushlineTestKit
import Testing

@Suite("Broadcast and channel management against apns-sim", .serialized, .timeLimit(.minutes(1)))
struct BroadcastTests {
    private let bundleID = "com.example.app"
    private let update = Array(#"{"aps":{"timestamp":1764489600,"event":"update","content-state":{"score":"2-1"}}}"#.utf8)

    private func fixture() throws -> SenderFixture {
        let fixture = try SenderFixture()
        try fixture.sender.addPool(named: "channels", credentials: .token(ProviderTokenSource(credentials: SenderFixture.devCredentials())),
                                   environment: APNsEnvironment(host: "localhost", port: fixture.harness.managementPort))
        return fixture
    }

    @Test("create, read, list, publish to and delete a channel")
    func channelLifecycle() async throws {
        let fixture = try fixture()
        defer { fixture.stop() }
        let sender = fixture.sender
        let channel = try await sender.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored, pool: "channels")
        #expect(!channel.isEmpty)
        #expect(try await sender.readChannel(bundleID: bundleID, channelID: channel, pool: "channels") == .noMessageStored)
        #expect(try await sender.listChannels(bundleID: bundleID, pool: "channels") == [channel])

        let message = BroadcastMessage(bundleID: bundleID, channelID: channel, payload: update)
        let published = try await sender.broadcast(message, pool: "dev")
        #expect(published.outcome == .accepted)
        #expect(published.status == 200)
        #expect(published.requestID.flatMap(NotificationID.init) == message.requestID)
        #expect(published.uniqueID != nil)

        try await sender.deleteChannel(bundleID: bundleID, channelID: channel, pool: "channels")
        #expect(try await sender.listChannels(bundleID: bundleID, pool: "channels").isEmpty)
    }

    @Test("publishing to a channel that does not exist is rejected with ChannelNotRegistered")
    func unknownChannel() async throws {
        let fixture = try fixture()
        defer { fixture.stop() }
        let result = try await fixture.sender.broadcast(BroadcastMessage(bundleID: bundleID, channelID: "dHN0LXNyY2gtY2hubA==", payload: update), pool: "dev")
        #expect(result.outcome == .rejected)
        #expect(result.reason == .channelNotRegistered)
    }

    @Test("a failed channel-management call throws with the reason")
    func managementError() async throws {
        let fixture = try fixture()
        defer { fixture.stop() }
        let error = await #expect(throws: ChannelManagementError.self) {
            try await fixture.sender.deleteChannel(bundleID: bundleID, channelID: "dHN0LXNyY2gtY2hubA==", pool: "channels")
        }
        #expect(error?.result.reason == .channelNotRegistered)
    }
}
