import Foundation
import PushlineTestKit
import Testing

/// `pushline-dev demo` (what `make run` runs) as a subprocess: the examples of Pipelines/examples go
/// through mock Kafka, redis-server (or, without one, the in-memory stores), the worker and the
/// in-process simulator, with the worker's metrics served on a free port.
@Suite("pushline-dev demo", .timeLimit(.minutes(3)))
struct DemoCommandTests {
    @Test("publishes the examples and prints their outcomes, token events, dead letters, the inbox and the metrics; exit 0")
    func runsDemo() throws {
        let result = try pushlineDev("demo")
        expectDemoReport(result)
        #expect(result.standardError.contains(", redis-server :"), "the demo uses redis-server when it is installed")
        #expect(!result.standardError.contains("warning"))
    }

    @Test("without redis-server on PATH: a warning naming the package, in-memory stores, the same outcomes; exit 0")
    func runsDemoWithoutRedis() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-no-redis-\(UUID().uuidString)").path
        let result = try pushlineDev(environment: ["PATH": path], "demo")
        expectDemoReport(result)
        #expect(result.standardError.contains("warning: redis-server is not installed (Debian package redis-server"))
        #expect(result.standardError.contains("in memory instead"))
        #expect(result.standardError.contains("nothing is kept after the demo ends"))
        #expect(result.standardError.contains(", in-memory stores, apns-sim :"))
    }

    /// What every demo run prints: the outcome table, token events, dead letters, inbox and the
    /// metrics, whose figures match the outcomes.
    private func expectDemoReport(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }

        // STATUS REASON APNS COUNT: six valid deliveries and the released digest, the duplicate, the
        // unregistered token, the broken intent, the second marketing reminder over the demo's cap,
        // the digest deferred by the demo's quiet hours.
        let outcomeRows = [["accepted", "-", "200", "7"], ["suppressed", "DuplicateIntent", "-", "1"],
                           ["rejected", "Unregistered", "410", "1"], ["invalid", "MalformedJSON", "-", "1"],
                           ["suppressed", "FrequencyCapped", "-", "1"], ["deferred", "QuietHours", "-", "1"]]
        for row in outcomeRows { #expect(lines.contains(row), sourceLocation: sourceLocation) }
        #expect(lines.contains(["==", "Outcomes", "(pushline.outcomes):", "12"]), sourceLocation: sourceLocation)
        #expect(lines.contains(["==", "Token", "events", "(pushline.token-events):", "1"]), sourceLocation: sourceLocation)
        #expect(lines.contains { $0.first == "unregistered" && $0.dropFirst().first == String(repeating: "0410", count: 16) },
                sourceLocation: sourceLocation)
        #expect(lines.contains(["==", "Dead", "letters", "(pushline.dlq):", "1"]), sourceLocation: sourceLocation)
        #expect(lines.contains { $0.first == "MalformedJSON" }, sourceLocation: sourceLocation)
        #expect(lines.contains(["==", "Simulator", "inbox:", "7", "notification(s)"]), sourceLocation: sourceLocation)
        #expect(result.standardError.contains("8/11 08-broken.json: invalid MalformedJSON"), sourceLocation: sourceLocation)
        #expect(result.standardError.contains("10/11 10-cart-reminder-marketing-capped.json: suppressed FrequencyCapped"), sourceLocation: sourceLocation)
        #expect(result.standardError.contains("11/11 11-weekly-digest.json: deferred QuietHours"), sourceLocation: sourceLocation)
        #expect(result.standardError.contains("released 11-weekly-digest.json: accepted"), sourceLocation: sourceLocation)

        // Where the metrics are served, first; at the end the registry's figures, which match the outcome table.
        let served = lines.first ?? []
        let base = served.dropFirst(6).first.map { String($0.dropLast("/metrics".count)) } ?? ""
        #expect(served == ["==", "Metrics", "while", "the", "demo", "runs:", base + "/metrics", base + "/healthz", base + "/readyz"],
                sourceLocation: sourceLocation)
        #expect(base.hasPrefix("http://127.0.0.1:") && UInt16(base.dropFirst("http://127.0.0.1:".count)) != nil, sourceLocation: sourceLocation)
        var byStatus: [String: Int] = [:]
        for row in outcomeRows { byStatus[row[0], default: 0] += Int(row[3]) ?? 0 }
        let statuses = byStatus.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        #expect(lines.contains(["pushline_deliveries_total", "by", "status:"] + statuses), sourceLocation: sourceLocation)
        // Every outcome with an APNs status was one request to the simulator.
        let requests = outcomeRows.filter { $0[2] != "-" }.reduce(0) { $0 + (Int($1[3]) ?? 0) }
        #expect(lines.contains { $0.starts(with: ["pushline_apns_latency_seconds:", "\(requests)", "requests,", "mean"]) },
                sourceLocation: sourceLocation)
    }
}
