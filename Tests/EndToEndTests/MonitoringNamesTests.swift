import Foundation
import PushlineTestKit
import Testing

/// The alert rules and the dashboard read only what a running `pushline run` exposes.
@Suite("Config/prometheus and Config/grafana: the names /metrics exposes", .timeLimit(.minutes(3)))
struct MonitoringNamesTests {
    @Test("every metric name in every expression of the rules and the dashboard is one that /metrics of a running worker exposes")
    func expressionsNameExposedMetrics() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            // Traffic that makes every family appear: accepted and rejected (intent 6's token is
            // unregistered), a duplicate, a dead letter, and retries (429 on a share of requests).
            let stack = try EndToEndStack(unregistered: [6])
            defer { stack.stop() }
            var faults = stack.harness.simulator.faults
            faults.tooManyRequestsRate = 0.3
            stack.harness.simulator.setFaults(faults)
            let (worker, endpoint) = try stack.startReadyWorker()
            defer { worker.stop() }
            try stack.publish(0..<12)
            try stack.publish([EndToEndStack.intent(0), Array(#"{"schema_version":1,"id":"#.utf8)])
            let log = try OutcomeLog(stack)
            try log.read(waitingFor: "every outcome") { $0.count == 14 }
            // A share of 429s is drawn at random (a seed per run): one more intent while every
            // request gets 429 makes the retries certain (about one run in a hundred drew none).
            faults.tooManyRequestsRate = 1
            stack.harness.simulator.setFaults(faults)
            try stack.publish(12..<13)

            let monitoring = try MonitoringExpressions()
            let expressions = monitoring.rules + monitoring.dashboard
            let read = Set(expressions.flatMap { MonitoringExpressions.metricNames(in: $0.text) })
            // Lag and broker counts come from librdkafka's statistics, once a second: wait for them.
            var exposed: Set<String> = []
            _ = try? Deadline.wait(.seconds(20), for: "every family the expressions read") {
                exposed = Self.exposedNames(try endpoint.metrics())
                Thread.sleep(forTimeInterval: 0.2)
                return read.filter { $0.hasPrefix("pushline_") }.isSubset(of: exposed)
            }
            #expect(read.count >= 25, "names read: \(read.sorted())")
            for expression in expressions {
                for name in MonitoringExpressions.metricNames(in: expression.text) {
                    if name.contains(":") {
                        let recorded = monitoring.recordedNames.contains(name)
                        #expect(recorded, "\(expression.place) reads \(name), which no rule records")
                    } else if name != Self.scrapeHealth {
                        let isExposed = exposed.contains(name)
                        #expect(isExposed, "\(expression.place) reads \(name), which /metrics does not expose")
                    }
                }
            }
        }
    }

    /// Prometheus' own series for each scrape, the one name the rules read that no exporter writes.
    static let scrapeHealth = "up"

    /// The sample names of an exposition: each family's name, and a histogram's `_bucket`, `_sum`
    /// and `_count` series, from the samples themselves (a family without members is not exposed).
    static func exposedNames(_ exposition: String) -> Set<String> {
        Set(exposition.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            line.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init)
        })
    }
}
