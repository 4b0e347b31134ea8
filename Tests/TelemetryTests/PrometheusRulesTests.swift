import Foundation
import PushlineTestKit
import Testing

/// The shipped alert and recording rules and the dashboard's PromQL, checked by promtool (Debian
/// package `prometheus`); a missing promtool fails with the package to install.
@Suite("Config/prometheus and Config/grafana: promtool")
struct PrometheusRulesTests {
    @Test("promtool check rules accepts Config/prometheus/pushline.rules.yml")
    func rulesAreValid() throws {
        let result = try Self.promtool(["check", "rules", RepositoryPaths.file(MonitoringExpressions.rulesFile)])
        #expect(result.status == 0, "promtool check rules: \(result.standardOutput)\(result.standardError)")
    }

    @Test("promtool test rules: every alert fires on its series and stays quiet on the others")
    func ruleUnitTestsPass() throws {
        let result = try Self.promtool(["test", "rules", RepositoryPaths.file(MonitoringExpressions.rulesTestFile)])
        #expect(result.status == 0, "promtool test rules: \(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("SUCCESS"))
    }

    @Test("every alert of the rule file has a firing and a quiet case in the promtool tests")
    func everyAlertIsTested() throws {
        let tests = try String(contentsOfFile: RepositoryPaths.file(MonitoringExpressions.rulesTestFile), encoding: .utf8)
        let alerts = try MonitoringExpressions().rules.map(\.place).filter { $0.hasPrefix("alert ") }.map { String($0.dropFirst(6)) }
        #expect(alerts.count >= 11)
        for alert in alerts {
            // Each `alert_rule_test` entry names its alert; an empty `exp_alerts` is a quiet case.
            let cases = tests.components(separatedBy: "alertname: \(alert)\n").dropFirst()
            #expect(cases.contains { $0.drop { $0 == " " }.hasPrefix("exp_alerts: []") }, "\(alert) has no quiet case")
            #expect(cases.contains { $0.drop { $0 == " " }.hasPrefix("exp_alerts:\n") }, "\(alert) has no firing case")
        }
    }

    @Test("every expression of the dashboard is PromQL that promtool accepts (Grafana's variables set to sample values)")
    func dashboardExpressionsParse() throws {
        let dashboard = try MonitoringExpressions().dashboard
        #expect(dashboard.count >= 20)
        // As recording rules, promtool parses each expression (a variable's label_values() as its selector).
        var rules = "groups:\n  - name: dashboard\n    rules:\n"
        for (index, expression) in dashboard.enumerated() {
            let promQL = expression.text.replacingOccurrences(of: "$__rate_interval", with: "5m")
                .replacingOccurrences(of: #"\$[A-Za-z_]+"#, with: ".*", options: .regularExpression)
            let quoted = promQL.replacingOccurrences(of: "'", with: "''")
            rules += "      - record: dashboard:check_\(index)\n        expr: '\(quoted)'\n"
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-dashboard-\(UUID().uuidString).yml")
        try rules.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try Self.promtool(["check", "rules", file.path])
        #expect(result.status == 0, "promtool check rules on the dashboard's expressions: \(result.standardOutput)\(result.standardError)")
    }

    @Test("metric names are read from PromQL without functions, labels, strings, ranges or Grafana variables")
    func metricNamesOfAnExpression() {
        let names = MonitoringExpressions.metricNames(in: #"""
            histogram_quantile(0.99, sum by (le, pool) (rate(pushline_apns_latency_seconds_bucket{outcome=~"a|b"}[$__rate_interval])))
              / on (pipeline) group_left pipeline:pushline_deliveries:rate5m > 4 * (up offset 5m) and pushline_x_total{pipeline=~"$pipeline"}
            """#)
        #expect(names == ["pushline_apns_latency_seconds_bucket", "pipeline:pushline_deliveries:rate5m", "up", "pushline_x_total"])
    }

    private static func promtool(_ arguments: [String]) throws -> CommandResult {
        try ExternalCommand.run(try ExternalCommand.locate("promtool", package: "prometheus"), arguments)
    }
}
