import Foundation
import PushlineTestKit
import Synchronization
import Telemetry
import Testing

@Suite("Telemetry server over HTTP")
struct TelemetryServerTests {
    /// What curl saw.
    struct Answer {
        let status: Int
        let contentType: String
        let body: String
    }

    /// One request with `curl`, an independent HTTP client.
    private func get(_ path: String, port: UInt16, method: String = "GET") throws -> Answer {
        let curl = try ExternalCommand.locate("curl", package: "curl")
        let result = try ExternalCommand.run(curl, ["-s", "-S", "-X", method, "-w", "\n%{http_code}\n%{content_type}",
                                                    "http://127.0.0.1:\(port)\(path)"])
        try #require(result.status == 0, "curl failed: \(result.standardError)")
        var lines = result.standardOutput.components(separatedBy: "\n")
        let contentType = lines.removeLast()
        let status = Int(lines.removeLast()) ?? -1
        return Answer(status: status, contentType: contentType, body: lines.joined(separator: "\n"))
    }

    @Test("/metrics serves the registry in the Prometheus text format, accepted by promtool")
    func metricsEndpoint() throws {
        let registry = MetricsRegistry()
        let server = try TelemetryServer(registry: registry) { true }
        defer { server.stop() }
        try registry.makeCounter(label: "pushline_test_events_total", dimensions: [("pool", "a")], help: "Events.").increment(by: 7)
        let answer = try get("/metrics", port: server.port)
        #expect(answer.status == 200)
        #expect(answer.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.body.contains("pushline_test_events_total{pool=\"a\"} 7\n"))
        try PromtoolCheck.expectAccepted(answer.body)
    }

    @Test("/healthz answers 200 while the process runs, whatever readiness says")
    func healthEndpoint() throws {
        let server = try TelemetryServer(registry: MetricsRegistry()) { false }
        defer { server.stop() }
        let answer = try get("/healthz", port: server.port)
        #expect(answer.status == 200)
        #expect(answer.body == "ok\n")
    }

    @Test("/readyz follows the readiness closure: 503 until ready, then 200")
    func readinessEndpoint() throws {
        let ready = Atomic<Bool>(false)
        let server = try TelemetryServer(registry: MetricsRegistry()) { ready.load(ordering: .relaxed) }
        defer { server.stop() }
        #expect(try get("/readyz", port: server.port).status == 503)
        ready.store(true, ordering: .relaxed)
        #expect(try get("/readyz", port: server.port).status == 200)
        ready.store(false, ordering: .relaxed)
        #expect(try get("/readyz", port: server.port).status == 503)
    }

    @Test("other paths answer 404 and other methods 405")
    func unknownRequests() throws {
        let server = try TelemetryServer(registry: MetricsRegistry()) { true }
        defer { server.stop() }
        #expect(try get("/", port: server.port).status == 404)
        #expect(try get("/metrics/extra", port: server.port).status == 404)
        #expect(try get("/metrics", port: server.port, method: "POST").status == 405)
    }
}
