import APNsClient
import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit

/// A sender with one pool named "dev" pointed at an in-process simulator.
struct SenderFixture {
    let harness: SimulatorHarness
    let sender: APNsSender
    static let topic = "com.example.app"

    init(simulator configuration: SimulatorConfiguration = SimulatorConfiguration(),
         simulatorClock: @escaping @Sendable () -> Int64 = APNsSimulator.systemNow,
         metrics: SenderMetrics = NoSenderMetrics(),
         sender adjust: (inout SenderConfiguration) -> Void = { _ in },
         tokenClock: @escaping @Sendable () -> Int64 = ProviderTokenSource.systemNow,
         credentials makeCredentials: ((SimulatorHarness) throws -> APNsCredentials)? = nil) throws {
        harness = try SimulatorHarness(configuration: configuration, now: simulatorClock)
        var senderConfiguration = SenderConfiguration()
        senderConfiguration.caFile = harness.certificateFile
        senderConfiguration.retryBackoffMilliseconds = 10
        senderConfiguration.maximumRetryBackoffMilliseconds = 200
        senderConfiguration.reconnectBackoffMilliseconds = 50
        senderConfiguration.connectionSpacingMilliseconds = 10
        adjust(&senderConfiguration)
        sender = try APNsSender(configuration: senderConfiguration, metrics: metrics)
        let credentials = try makeCredentials?(harness) ?? .token(ProviderTokenSource(credentials: Self.devCredentials(), now: tokenClock))
        try sender.addPool(named: "dev", credentials: credentials,
                           environment: APNsEnvironment(host: "localhost", port: harness.devicePort))
    }

    static func devCredentials() throws -> ProviderTokenCredentials {
        try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                     p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
    }

    /// `count` alert notifications to distinct devices (or to `token` when given).
    static func notifications(_ count: Int, token: String? = nil, topic: String = topic, intent: String = "intent") throws -> [APNsNotification] {
        try (0..<count).map { index in
            let hex = token ?? String(format: "%064x", index + 1)
            let deviceToken = try DeviceToken(hex)
            return APNsNotification(deviceToken: deviceToken, pushType: .alert, topic: topic,
                                    id: .derived(intentID: "\(intent)-\(index)", deviceToken: deviceToken),
                                    payload: Array(#"{"aps":{"alert":"hello \#(index)"}}"#.utf8))
        }
    }

    func stop() {
        sender.shutdown()
        harness.stop()
    }
}
