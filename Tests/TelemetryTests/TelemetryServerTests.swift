import EmbeddedHTTP
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

    @Test("bound to ::1, the endpoints answer on IPv6 loopback and nothing listens on 127.0.0.1")
    func bindsIPv6Loopback() throws {
        let server = try TelemetryServer(registry: MetricsRegistry(), address: "::1") { true }
        defer { server.stop() }
        #expect(try Curl.request("/readyz", port: server.port, host: "::1").status == 200)
        #expect(try !Curl.connects(port: server.port, host: "127.0.0.1"))
    }

    @Test("bound to ::, the endpoints answer on IPv6 and IPv4 addresses")
    func bindsEveryAddress() throws {
        let server = try TelemetryServer(registry: MetricsRegistry(), address: "::") { true }
        defer { server.stop() }
        #expect(try Curl.request("/healthz", port: server.port, host: "::1").status == 200)
        #expect(try Curl.request("/healthz", port: server.port, host: "127.0.0.1").status == 200)
    }

    @Test("by default only 127.0.0.1 is bound: nothing listens on ::1")
    func bindsIPv4LoopbackByDefault() throws {
        let server = try TelemetryServer(registry: MetricsRegistry()) { true }
        defer { server.stop() }
        #expect(try Curl.request("/healthz", port: server.port).status == 200)
        #expect(try !Curl.connects(port: server.port, host: "::1"))
    }

    @Test("an address that is not an IP address, or that no interface has, fails to start with the address in the error")
    func unusableAddress() {
        #expect(throws: EmbeddedHTTPError(address: "localhost", port: 0, errorNumber: 22)) {
            try TelemetryServer(registry: MetricsRegistry(), address: "localhost") { true }
        }
        do {
            _ = try TelemetryServer(registry: MetricsRegistry(), address: "192.0.2.1") { true }
            Issue.record("192.0.2.1 (TEST-NET-1) is no interface's address here")
        } catch {
            #expect(error.errorNumber == 99, "EADDRNOTAVAIL")
            #expect(error.description == "cannot start the HTTP server on 192.0.2.1:0 (errno 99)")
        }
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
