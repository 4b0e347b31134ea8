import Foundation
import PushlineTestKit
import Testing

/// `pushline demo` (what `make run` runs) as a subprocess: the examples of Pipelines/examples go
/// through mock Kafka, redis-server, the worker and the in-process simulator.
@Suite("pushline demo", .timeLimit(.minutes(3)))
struct DemoCommandTests {
    @Test("publishes the examples and prints their outcomes, token events, dead letters and the inbox; exit 0")
    func runsDemo() throws {
        let result = try pushline("demo")
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }

        // STATUS REASON APNS COUNT: five valid deliveries, the duplicate, the unregistered token, the broken intent.
        #expect(lines.contains(["accepted", "-", "200", "5"]))
        #expect(lines.contains(["suppressed", "DuplicateIntent", "-", "1"]))
        #expect(lines.contains(["rejected", "Unregistered", "410", "1"]))
        #expect(lines.contains(["invalid", "MalformedJSON", "-", "1"]))
        #expect(lines.contains(["==", "Outcomes", "(pushline.outcomes):", "8"]))
        #expect(lines.contains(["==", "Token", "events", "(pushline.token-events):", "1"]))
        #expect(lines.contains { $0.first == "unregistered" && $0.dropFirst().first == String(repeating: "0410", count: 16) })
        #expect(lines.contains(["==", "Dead", "letters", "(pushline.dlq):", "1"]))
        #expect(lines.contains { $0.first == "MalformedJSON" })
        #expect(lines.contains(["==", "Simulator", "inbox:", "5", "notification(s)"]))
        #expect(result.standardError.contains("8/8 08-broken.json: invalid MalformedJSON"))
    }
}
