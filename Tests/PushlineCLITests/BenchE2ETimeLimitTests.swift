import Foundation
import PushlineTestKit
import Synchronization
import Testing

/// A benchmark that a test gives up on (``ExternalCommand``'s time limit) takes the processes it
/// started with it: none is left running, reparented, once it is killed.
@Suite("pushline-dev bench e2e: killed at its time limit", .timeLimit(.minutes(5)))
struct BenchE2ETimeLimitTests {
    @Test("a bench killed at its time limit leaves none of its processes (pushline run, apns-sim, redis-server) running")
    func killedBenchLeavesNoProcesses() async throws {
        // Every process the bench starts inherits its environment, this variable with it.
        let (variable, value) = ("PUSHLINE_TEST_BENCH", UUID().uuidString)
        let mark = "\(variable)=\(value)"
        let seen = SeenProcesses()
        let watching = Task {
            while !Task.isCancelled {
                seen.add(Self.processes(marked: mark).map(\.name))
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        // A ten-minute half load: the bench is still running, with its servers and worker, when
        // the limit passes.
        let ended = try await DedicatedThread.run(timeout: .seconds(200)) {
            Result {
                try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"),
                                        ["bench", "e2e", "--intents", "20000", "--h2load-requests", "2000", "--half-load-seconds", "600"],
                                        environment: [variable: value],
                                        timeLimit: .seconds(120))
            }
        }
        watching.cancel()
        #expect(throws: LocalStackError.self) { try ended.get() }
        let started = seen.names
        #expect(started.isSuperset(of: ["pushline-dev", "pushline", "apns-sim", "redis-server"]),
                "the bench had not started its processes when it was killed: \(started)")
        // SIGKILL is delivered at once; the processes are gone once their new parent reaps them.
        let left = try await DedicatedThread.run(timeout: .seconds(60)) {
            var left = Self.processes(marked: mark)
            for _ in 0..<100 where !left.isEmpty {
                usleep(200_000)
                left = Self.processes(marked: mark)
            }
            return left.map { "\($0.id) \($0.name)" }
        }
        #expect(left.isEmpty, "still running after the bench was killed: \(left)")
    }

    /// The live processes whose environment holds `mark` (`NAME=value`): the bench and what it started.
    /// A zombie's environment cannot be read: it is not counted (it runs no more).
    private static func processes(marked mark: String) -> [(id: Int32, name: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let id = Int32(entry), let environment = read("/proc/\(entry)/environ"),
                  environment.split(separator: 0).contains(where: { $0.elementsEqual(mark.utf8) }),
                  let name = read("/proc/\(entry)/comm") else { return nil }
            return (id, String(decoding: name, as: UTF8.self).trimmingCharacters(in: .newlines))
        }
    }

    /// A /proc file's bytes, read to its end (its size reads as 0); nil once the process is gone.
    private static func read(_ path: String) -> Data? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        return try? file.readToEnd()
    }
}

/// The names of the processes a watching task saw, read by the test once it is done.
private final class SeenProcesses: Sendable {
    private let seen = Mutex<Set<String>>([])

    func add(_ names: [String]) {
        seen.withLock { $0.formUnion(names) }
    }

    var names: Set<String> { seen.withLock { $0 } }
}
