import Foundation
import PushlineTestKit
import Testing

/// The telemetry of a running `pushline run`, checked by Prometheus' own parser.
@Suite("pushline run: /metrics", .timeLimit(.minutes(3)))
struct MetricsExpositionTests {
    @Test("promtool accepts the /metrics of a running pushline run, with the contract's metric names counting what happened; /healthz answers 200")
    func metricsExposition() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            // Intent 20's token is unregistered (410): a rejected outcome and a token event.
            let stack = try EndToEndStack(unregistered: [20])
            defer { stack.stop() }
            let (worker, endpoint) = try stack.startReadyWorker()
            defer { worker.stop() }
            #expect(try endpoint.status("/healthz") == 200)
            try stack.publish(0..<21)
            let log = try OutcomeLog(stack)
            try log.readAll(0..<21)
            // A redelivered intent (suppressed) and cut-off JSON (a dead letter and an `invalid` outcome).
            try stack.publish([EndToEndStack.intent(0), Array(#"{"schema_version":1,"id":"#.utf8)])
            try log.read(waitingFor: "the duplicate's and the broken intent's outcomes") { $0.count == 23 }

            let exposition = try endpoint.metrics()
            let promtool = try ExternalCommand.locate("promtool", package: "prometheus")
            let check = try ExternalCommand.run(promtool, ["check", "metrics"], standardInput: Data(exposition.utf8))
            #expect(check.status == 0 && check.standardOutput.isEmpty && check.standardError.isEmpty,
                    "promtool: \(check.standardOutput)\(check.standardError)")
            for name in Self.contractMetrics {
                #expect(exposition.contains("# TYPE \(name) "), "\(name) is missing from /metrics")
            }
            #expect(exposition.contains("# TYPE pushline_apns_"), "the sender's metrics are missing")
            #expect(try endpoint.sum(of: "pushline_intents_consumed_total") == 23)
            #expect(try endpoint.sum(of: "pushline_deliveries_total") == 23)
            #expect(try endpoint.sum(of: "pushline_deliveries_total", labelled: #"status="accepted""#) == 20)
            #expect(try endpoint.sum(of: "pushline_suppressed_total", labelled: #"kind="duplicate_intent""#) == 1)
            #expect(try endpoint.sum(of: "pushline_dead_letters_total") == 1)
            #expect(try endpoint.sum(of: "pushline_token_events_total") == 1)
        }
    }

    /// The worker's metric names of the contract between the worker and end-to-end helpers.
    static let contractMetrics = [
        "pushline_intents_consumed_total", "pushline_deliveries_total", "pushline_suppressed_total", "pushline_dead_letters_total",
        "pushline_token_events_total", "pushline_batch_deliveries", "pushline_end_to_end_latency_seconds",
        "pushline_inflight_deliveries", "pushline_consumer_paused", "pushline_consumer_lag", "pushline_redis_available",
        "pushline_dedupe_skipped_total",
    ]
}
