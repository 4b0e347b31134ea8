import APNsClient
@testable import APNsTelemetry
import PushlineTestKit
import Telemetry
import Testing

@Suite("Sender metrics recorder")
struct SenderMetricsRecorderTests {
    @Test("every sender hook lands in its documented metric with its labels")
    func hooksUseDocumentedNames() throws {
        let registry = MetricsRegistry()
        let recorder = try SenderMetricsRecorder(registry: registry, latencyBuckets: [0.01, 0.1])
        recorder.recordResult(pool: "production", outcome: .accepted, status: 200, reason: nil, latencyMilliseconds: 20)
        recorder.recordResult(pool: "production", outcome: .rejected, status: 410, reason: "Unregistered", latencyMilliseconds: 5)
        recorder.recordResult(pool: "production", outcome: .failed, status: nil, reason: nil, latencyMilliseconds: 200)
        recorder.recordRetry(pool: "production", cause: "TooManyRequests")
        recorder.recordRetry(pool: "production", cause: "TooManyRequests")
        recorder.recordTokenRefresh(pool: "production")
        recorder.recordPoolState(pool: "production", openConnections: 2, inFlightStreams: 7, freeStreamCapacity: 1993)
        let text = registry.exposition
        for sample in [
            #"pushline_apns_results_total{pool="production",outcome="accepted",status="200",reason="none"} 1"#,
            #"pushline_apns_results_total{pool="production",outcome="rejected",status="410",reason="Unregistered"} 1"#,
            #"pushline_apns_results_total{pool="production",outcome="failed",status="none",reason="none"} 1"#,
            #"pushline_apns_latency_seconds_bucket{pool="production",outcome="accepted",le="0.1"} 1"#,
            #"pushline_apns_latency_seconds_bucket{pool="production",outcome="failed",le="0.1"} 0"#,
            #"pushline_apns_latency_seconds_sum{pool="production",outcome="accepted"} 0.02"#,
            #"pushline_apns_retries_total{pool="production",cause="TooManyRequests"} 2"#,
            #"pushline_apns_token_refreshes_total{pool="production"} 1"#,
            #"pushline_apns_connections{pool="production"} 2"#,
            #"pushline_apns_inflight_streams{pool="production"} 7"#,
            #"pushline_apns_free_stream_capacity{pool="production"} 1993"#,
        ] {
            #expect(text.contains(sample + "\n"), "exposition has \(sample)")
        }
        try PromtoolCheck.expectAccepted(text)
    }

    @Test("a status label is the status in decimal, for the statuses written as literals and any other")
    func statusLabelIsDecimal() {
        for status in [100, 200, 204, 400, 403, 404, 405, 410, 413, 429, 500, 502, 503, 599] {
            #expect(SenderMetricsRecorder.statusLabel(status) == String(status))
        }
    }

    @Test("circuit transitions set the open gauge, count by state and probe, and are logged with pool and cause")
    func circuitMetricsAndLogLines() throws {
        let registry = MetricsRegistry()
        let lines = LineCollector()
        let recorder = try SenderMetricsRecorder(registry: registry, logger: lines.logger())
        recorder.recordCircuit(pool: "production", state: .open, cause: "ServiceUnavailable")
        recorder.recordProbe(pool: "production")
        recorder.recordProbe(pool: "production")
        let whileOpen = registry.exposition
        recorder.recordCircuit(pool: "production", state: .closed, cause: "probe answered")
        let text = registry.exposition
        #expect(whileOpen.contains(#"pushline_apns_circuit_open{pool="production"} 1"# + "\n"))
        for sample in [
            #"pushline_apns_circuit_open{pool="production"} 0"#,
            #"pushline_apns_circuit_transitions_total{pool="production",state="open"} 1"#,
            #"pushline_apns_circuit_transitions_total{pool="production",state="closed"} 1"#,
            #"pushline_apns_circuit_probes_total{pool="production"} 2"#,
        ] {
            #expect(text.contains(sample + "\n"), "exposition has \(sample)")
        }
        try PromtoolCheck.expectAccepted(text)
        let logged = try lines.parsedObjects()
        #expect(logged.map { $0["message"] as? String } == ["apns circuit opened", "apns circuit closed"])
        #expect(logged.map { $0["pool"] as? String } == ["production", "production"])
        #expect(logged.map { $0["cause"] as? String } == ["ServiceUnavailable", "probe answered"])
    }

    @Test("two recorders on one registry share the metrics")
    func recordersShareRegistry() throws {
        let registry = MetricsRegistry()
        try SenderMetricsRecorder(registry: registry).recordTokenRefresh(pool: "a")
        try SenderMetricsRecorder(registry: registry).recordTokenRefresh(pool: "a")
        #expect(try registry.makeCounter(label: "pushline_apns_token_refreshes_total", dimensions: [("pool", "a")]).value == 2)
    }

    @Test("a registry that already holds a sender name with another type is an error")
    func conflictingRegistryIsAnError() throws {
        let registry = MetricsRegistry()
        _ = try registry.makeGauge(label: "pushline_apns_latency_seconds")
        let error = #expect(throws: MetricsRegistryError.self) { try SenderMetricsRecorder(registry: registry) }
        #expect(error?.code == .conflictingRegistration)
    }
}
