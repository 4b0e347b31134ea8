import Synchronization
import Telemetry
import Testing

@Suite("Telemetry server over HTTP")
struct TelemetryServerTests {
    @Test("/metrics serves the registry in the Prometheus text format, accepted by promtool")
    func metricsEndpoint() throws {
        let registry = MetricsRegistry()
        let server = try TelemetryServer(registry: registry) { true }
        defer { server.stop() }
        try registry.makeCounter(label: "pushline_test_events_total", dimensions: [("pool", "a")], help: "Events.").increment(by: 7)
        let answer = try Curl.request("/metrics", port: server.port)
        #expect(answer.status == 200)
        #expect(answer.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.body.contains("pushline_test_events_total{pool=\"a\"} 7\n"))
        try PromtoolCheck.expectAccepted(answer.body)
    }

    @Test("/healthz answers 200 while the process runs, whatever readiness says")
    func healthEndpoint() throws {
        let server = try TelemetryServer(registry: MetricsRegistry()) { false }
        defer { server.stop() }
        let answer = try Curl.request("/healthz", port: server.port)
        #expect(answer.status == 200)
        #expect(answer.body == "ok\n")
    }

    @Test("/readyz follows the readiness closure: 503 until ready, then 200")
    func readinessEndpoint() throws {
        let ready = Atomic<Bool>(false)
        let server = try TelemetryServer(registry: MetricsRegistry()) { ready.load(ordering: .relaxed) }
        defer { server.stop() }
        #expect(try Curl.request("/readyz", port: server.port).status == 503)
        ready.store(true, ordering: .relaxed)
        #expect(try Curl.request("/readyz", port: server.port).status == 200)
        ready.store(false, ordering: .relaxed)
        #expect(try Curl.request("/readyz", port: server.port).status == 503)
    }

    @Test("other paths answer 404 and other methods 405")
    func unknownRequests() throws {
        let server = try TelemetryServer(registry: MetricsRegistry()) { true }
        defer { server.stop() }
        #expect(try Curl.request("/", port: server.port).status == 404)
        #expect(try Curl.request("/metrics/extra", port: server.port).status == 404)
        #expect(try Curl.request("/metrics", port: server.port, method: "POST").status == 405)
    }
}
