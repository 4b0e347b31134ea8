import APNsCore
import Foundation
import PushlineTestKit
import Testing

/// The short fault matrix (`pushline-dev bench faults --short`, docs/RELIABILITY.md) inside `make test`:
/// the rows whose goals the code meets today, each on its own stack of processes, and the figures
/// they print checked here.
@Suite("the fault matrix, short", .serialized, .timeLimit(.minutes(3)))
struct FaultMatrixTests {
    /// One row's JSON line (`faults-row {…}`).
    struct Row: Sendable {
        let name: String
        let intents: Int
        let outcomes: Int
        let withoutOutcome: Int
        let devicesTwice: Int
        let failed: Int
        let workerExits: Int
        let recoverySeconds: Double?
        let goals: [String: Bool]
    }

    /// Runs `pushline-dev bench faults --short --json` on `rows` and returns each row's figures.
    private func run(_ rows: [String]) async throws -> [Row] {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let result = try ExternalCommand.run(try RepositoryPaths.builtExecutable("pushline-dev"), [
                "bench", "faults", "--short", "--json", "--rows", rows.joined(separator: ","),
                // A killed or stopped member's partitions move on within seconds (librdkafka's default: 45 s).
                "--kafka-property", "session.timeout.ms=6000",
            ])
            guard result.status == 0 else { throw TestKitError("bench faults exited \(result.status): \(result.standardError.suffix(3000))") }
            return try result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("faults-row ") }.map { line in
                try Self.row(Array(line.dropFirst("faults-row ".count).utf8))
            }
        }
    }

    private static func row(_ json: [UInt8]) throws -> Row {
        guard case .object(let row) = try JSONParser.parse(json), let name = row["row"]?.stringValue,
              case .object(let goals)? = row["goals"] else { throw TestKitError("not a row: \(String(decoding: json, as: UTF8.self))") }
        func integer(_ key: String) -> Int { Int(row[key]?.numberValue ?? -1) }
        return Row(name: name, intents: integer("intents"), outcomes: integer("outcomes"), withoutOutcome: integer("without_outcome"),
                   devicesTwice: integer("devices_twice"), failed: integer("failed"), workerExits: integer("worker_exits"),
                   recoverySeconds: row["recovery_seconds"]?.numberValue,
                   goals: Dictionary(uniqueKeysWithValues: goals.members.map { ($0.key, $0.value == .bool(true)) }))
    }

    @Test("GOAWAY every 1,000 streams, the stream limit collapsing to 1, Redis killed and restarted empty, 1 % poison intents up to 2 MB: every intent has an outcome, none twice, the worker never exits and resumes within 5 s")
    func rowsThatMeetTheirGoals() async throws {
        let rows = try await run(["goaway", "stream-collapse", "redis-restart", "poison"])
        #expect(rows.map(\.name) == ["goaway", "stream-collapse", "redis-restart", "poison"])
        for row in rows {
            #expect(row.intents == 1000, "\(row.name)")
            #expect(row.outcomes >= row.intents, "\(row.name)")
            #expect(row.withoutOutcome == 0, "\(row.name)")
            #expect(row.devicesTwice == 0, "\(row.name)")
            #expect(row.failed == 0, "\(row.name)")
            #expect(row.workerExits == 0, "\(row.name)")
            // The poison row's fault has no end: it has no recovery.
            #expect(row.name == "poison" || row.recoverySeconds != nil, "\(row.name): nothing was accepted after the fault ended")
            #expect(row.goals.values.allSatisfy { $0 }, "\(row.name): \(row.goals)")
        }
    }
}
