import APNsCore
import APNsSimulator
import Foundation
import Testing

@Suite("Device registry")
struct DeviceRegistryTests {
    private func entry(_ token: String = Fixture.deviceToken, environment: SimulatorEnvironment = .sandbox,
                       unregisteredAt: Int64? = nil) throws -> DeviceRegistry.Entry {
        DeviceRegistry.Entry(token: try DeviceToken(token), topic: Fixture.topic, environment: environment,
                             unregisteredAt: unregisteredAt)
    }

    private func registry(_ entries: [DeviceRegistry.Entry]) -> (inout SimulatorConfiguration) throws -> Void {
        { $0.devices = DeviceRegistry(acceptsUnknownTokens: false, entries: entries) }
    }

    @Test("open mode accepts any well-formed token, of any length")
    func openModeAcceptsAnyToken() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push(token: "00ff").status == 200)
        #expect(try harness.push(token: String(repeating: "0a", count: 100)).status == 200)
    }

    @Test("in registry mode an unknown token is 400 BadDeviceToken")
    func unknownTokenInRegistryMode() throws {
        let harness = try SimulatorHarness(registry([try entry()]))
        #expect(try harness.push().status == 200)
        #expect(try harness.push(token: Fixture.otherDeviceToken).reason == "BadDeviceToken")
    }

    @Test("a token of the other environment is 400 BadDeviceToken")
    func otherEnvironment() throws {
        let harness = try SimulatorHarness(registry([try entry(environment: .production)]))
        #expect(try harness.push().reason == "BadDeviceToken")
    }

    @Test("a topic of another app is 400 DeviceTokenNotForTopic")
    func otherTopic() throws {
        let harness = try SimulatorHarness(registry([try entry()]))
        #expect(try harness.push(["apns-topic": "com.example.other"]).reason == "DeviceTokenNotForTopic")
    }

    @Test("the app's topics with a push-type suffix belong to the token")
    func suffixedTopicBelongsToToken() throws {
        let harness = try SimulatorHarness(registry([try entry()]))
        #expect(try harness.push(["apns-push-type": "voip", "apns-topic": Fixture.topic + ".voip"]).status == 200)
    }

    @Test("an unregistered token is 410 Unregistered with the timestamp in milliseconds")
    func unregisteredToken() throws {
        let harness = try SimulatorHarness(registry([try entry(unregisteredAt: 1_767_225_600_123)]))
        let response = try harness.push()
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        #expect(response.json?["timestamp"] == .integer(1_767_225_600_123))
        #expect(response.header("content-type") == "application/json")
    }

    @Test("in open mode registered entries still apply")
    func openModeChecksRegisteredTokens() throws {
        let harness = try SimulatorHarness()
        harness.simulator.registerDevices([try entry(unregisteredAt: 5)])
        #expect(try harness.push().status == 410)
        #expect(try harness.push(token: Fixture.otherDeviceToken).status == 200)
    }

    @Test("a registry file loads in registry mode")
    func registryFileLoads() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            {"devices": [
              {"token": "\(Fixture.deviceToken.uppercased())", "topic": "\(Fixture.topic)", "environment": "development"},
              {"token": "\(Fixture.otherDeviceToken)", "topic": "\(Fixture.topic)", "environment": "sandbox", "unregistered_at": 42}
            ]}
            """.utf8).write(to: file)
        let registry = try DeviceRegistry(file: file.path)
        #expect(!registry.acceptsUnknownTokens)
        #expect(registry.entries.count == 2)
        #expect(registry.entries[Fixture.deviceToken]?.environment == .sandbox)
        #expect(registry.entries[Fixture.otherDeviceToken]?.unregisteredAt == 42)
    }

    @Test("a bad registry document is an error naming the key", arguments: [
        (#"{"devices": [{"token": "zz", "topic": "t", "environment": "sandbox"}]}"#, "devices[0].token"),
        (#"{"devices": [{"token": "ab", "topic": "t", "environment": "staging"}]}"#, "devices[0].environment"),
        (#"{"devices": [{"token": "ab", "environment": "sandbox"}]}"#, "devices[0].topic"),
        (#"{"devices": [{"token": "ab", "topic": "t", "environment": "sandbox", "unregistered_at": "soon"}]}"#, "devices[0].unregistered_at"),
        (#"{"tokens": []}"#, "devices"),
    ])
    func badRegistryDocument(document: String, key: String) {
        let error = #expect(throws: SimulatorConfigurationError.self) {
            try DeviceRegistry.entries(json: Array(document.utf8), source: "test")
        }
        #expect(error?.key == key)
    }

    @Test("a missing registry file is an error naming the file")
    func missingRegistryFile() {
        let error = #expect(throws: SimulatorConfigurationError.self) { try DeviceRegistry(file: "/nonexistent/devices.json") }
        #expect(error?.source == "/nonexistent/devices.json")
    }
}
