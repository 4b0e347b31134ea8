import APNsClient
import APNsCore
import APNsTelemetry
import Foundation
import PushlineTestKit
import Telemetry
import Testing

@Suite("Sender metrics end to end", .timeLimit(.minutes(1)))
struct SenderMetricsEndToEndTests {
    @Test("a real sender's pushes through apns-sim appear on /metrics, and promtool accepts the page")
    func realSenderThroughTelemetryServer() async throws {
        let registry = MetricsRegistry()
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        var configuration = SenderConfiguration()
        configuration.caFile = harness.certificateFile
        let sender = try APNsSender(configuration: configuration, metrics: SenderMetricsRecorder(registry: registry))
        defer { sender.shutdown() }
        let credentials = try ProviderTokenCredentials(
            keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
            p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
        try sender.addPool(named: "dev", credentials: .token(ProviderTokenSource(credentials: credentials)),
                           environment: APNsEnvironment(host: "localhost", port: harness.devicePort))
        let notifications = try (1...5).map { index in
            let deviceToken = try DeviceToken(String(repeating: "0", count: 63) + "\(index)")
            return APNsNotification(deviceToken: deviceToken, pushType: .alert, topic: "com.example.app",
                                    id: .derived(intentID: "telemetry-\(index)", deviceToken: deviceToken),
                                    payload: Array(#"{"aps":{"alert":"hello"}}"#.utf8))
        }
        let results = try await sender.send(notifications, pool: "dev")
        try #require(results.allSatisfy { $0.outcome == .accepted })

        let server = try TelemetryServer(registry: registry) { true }
        defer { server.stop() }
        let page = try Curl.request("/metrics", port: server.port)
        #expect(page.status == 200)
        for sample in [
            #"pushline_apns_results_total{pool="dev",outcome="accepted",status="200",reason="none"} 5"#,
            #"pushline_apns_latency_seconds_count{pool="dev",outcome="accepted"} 5"#,
        ] {
            #expect(page.body.contains(sample + "\n"), "/metrics has \(sample)")
        }
        #expect(page.body.contains(#"pushline_apns_token_refreshes_total{pool="dev"} "#))
        #expect(page.body.contains(#"pushline_apns_connections{pool="dev"} "#))
        try PromtoolCheck.expectAccepted(page.body)
    }
}
