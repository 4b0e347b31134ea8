import Foundation
import PushlineTestKit
import Testing

/// docs/analytics.md's DuckDB queries, every one of them, extracted from the doc by
/// scripts/analytics-sql.py and run with the duckdb Python package (.build/analytics-venv, made by
/// `make setup`) on an export of what a real pipeline wrote for the demo's examples (with a copy of
/// one outcome, `--all-copies`, so the doc's one-row-per-delivery view is exercised too).
@Suite("docs/analytics.md in DuckDB", .timeLimit(.minutes(3)))
struct AnalyticsTests {
    @Test("every query of docs/analytics.md runs on a pipeline's export and gives what was sent")
    func docQueriesGiveWhatWasSent() async throws {
        let python = RepositoryPaths.file(".build/analytics-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestKitError("\(python) is missing: run `make setup`, which makes it and installs duckdb (PyPI) into it")
        }
        let fixture = try await DedicatedThread.run { try OutputTopicsFixture() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-analytics-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let export = try await pushlineOffPool(["outcomes", "export", "--brokers", fixture.brokers, "--all-copies",
                                                "--output", directory + "/outcomes.jsonl"])
        try await DedicatedThread.run { try fixture.stop() }
        #expect(export.status == 0, "\(export.standardError)")

        let run = try await DedicatedThread.run {
            try ExternalCommand.run(python, [RepositoryPaths.file("scripts/analytics-sql.py"), RepositoryPaths.file("docs/analytics.md"), directory])
        }
        #expect(run.status == 0, "\(run.standardError)")
        let results = (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))) as? [[String: Any]] ?? []
        var rows: [String: [[Any]]] = [:]
        for result in results { rows[result["name"] as? String ?? ""] = result["rows"] as? [[Any]] ?? [] }
        #expect(results.map { $0["name"] as? String } == ["load", "deliveries", "daily_delivery_rate", "rejection_reasons",
                                                          "time_to_outcome", "tokens_to_remove"])

        // What was sent: the demo's 10 deliveries, all completed on one day (UTC): 9 of the example app
        // (7 accepted, 1 suppressed) and the broken intent, whose app is unknown.
        let outcomes = fixture.outcomes.map(jsonObject)
        let days = Set(outcomes.compactMap { ($0["completed_at"] as? Int).map { $0 / 86_400_000 } })
        #expect(days.count == 1)
        let daily = rows["daily_delivery_rate"] ?? []
        #expect(daily.map { $0.dropFirst().prefix(4).map { "\($0)" } } == [["com.example.pushline", "9", "7", "1"], ["unknown", "1", "0", "0"]])
        #expect(daily.map { ($0.last as? NSNumber)?.doubleValue } == [0.875, 0])

        #expect((rows["rejection_reasons"] ?? []).map { $0.map { "\($0)" } } == [["com.example.pushline", "Unregistered", "410", "1"]])

        var expected: [String: [Int]] = [:]
        for outcome in outcomes {
            guard let created = outcome["created_at"] as? Int, let completed = outcome["completed_at"] as? Int else { continue }
            expected[outcome["status"] as? String ?? "", default: []].append(completed - created)
        }
        let timeToOutcome = (rows["time_to_outcome"] ?? []).map { $0.map { "\($0)" } }
        #expect(timeToOutcome.map { $0[1] } == expected.keys.sorted())
        for row in timeToOutcome {
            let values = expected[row[1]] ?? []
            #expect(row[2] == "\(values.count)" && row[5] == "\(values.max() ?? -1)", "\(row)")
        }

        #expect((rows["tokens_to_remove"] ?? []).map { $0.map { "\($0)" } }
            == [["com.example.pushline", "sandbox", OutputTopicsFixture.unregisteredToken, "Unregistered", "\(OutputTopicsFixture.unregisteredAt)"]])
    }
}
