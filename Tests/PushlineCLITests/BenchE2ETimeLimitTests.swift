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
        // The bench is found by this variable in its environment, then what it started by their parent.
        let (variable, value) = ("PUSHLINE_TEST_BENCH", UUID().uuidString)
        let seen = SeenProcesses()
        let watching = Task {
            while !Task.isCancelled {
                if let bench = ProcessEntry.all().first(where: { $0.environment(has: "\(variable)=\(value)") }) {
                    seen.add([bench] + bench.descendants(among: ProcessEntry.all()))
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        // A ten-minute half load: the bench is still running, with its servers and worker, when
        // the limit passes.
        let ended = try await DedicatedThread.run(timeout: .seconds(200)) {
            Result {
                try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"),
                                        ["bench", "e2e", "--intents", "20000", "--h2load-requests", "2000", "--half-load-seconds", "600"],
                                        environment: [variable: value], timeLimit: .seconds(120))
            }
        }
        watching.cancel()
        #expect(throws: LocalStackError.self) { try ended.get() }
        let started = seen.all
        #expect(Set(started.map(\.name)).isSuperset(of: ["pushline-dev", "pushline", "apns-sim", "redis-server"]),
                "the bench had not started its processes when it was killed: \(started)")
        // SIGKILL is delivered at once; a process is gone once it has exited (a zombie until its new
        // parent reaps it runs no more).
        let left = try await DedicatedThread.run(timeout: .seconds(60)) {
            var left = started.filter(\.isRunning)
            for _ in 0..<100 where !left.isEmpty {
                usleep(200_000)
                left = left.filter(\.isRunning)
            }
            return left
        }
        #expect(left.isEmpty, "still running after the bench was killed: \(left)")
    }
}

/// One process of /proc: its id, parent, name and start time (which tells it from a later process
/// given the same id).
private struct ProcessEntry: Hashable, Sendable, CustomStringConvertible {
    let id: Int32
    let parent: Int32
    let name: String
    let startTime: String
    /// `R`, `S`, `D`…; `Z` once it has exited and waits to be reaped.
    let state: Character

    var description: String { "\(id) \(name)" }

    /// Every process whose `stat` could be read.
    static func all() -> [ProcessEntry] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0).flatMap(entry) }
    }

    /// `/proc/<id>/stat`: `id (name) state parent …`, the start time its 22nd field; the name may
    /// hold spaces and parentheses, so the fields are counted from the last `)`.
    private static func entry(_ id: Int32) -> ProcessEntry? {
        guard let stat = read("/proc/\(id)/stat").map({ String(decoding: $0, as: UTF8.self) }),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
        return ProcessEntry(id: id, parent: parent, name: String(stat[stat.index(after: open)..<close]), startTime: String(fields[19]),
                            state: state)
    }

    /// Whether this process (the same one: same start time) still exists and has not exited.
    var isRunning: Bool {
        guard let now = Self.entry(id), now.startTime == startTime else { return false }
        return now.state != "Z" && now.state != "X"
    }

    /// Whether its environment holds `variable` (`NAME=value`).
    func environment(has variable: String) -> Bool {
        Self.read("/proc/\(id)/environ")?.split(separator: 0).contains { $0.elementsEqual(variable.utf8) } ?? false
    }

    /// Its children, theirs, and so on, among `processes`.
    func descendants(among processes: [ProcessEntry]) -> [ProcessEntry] {
        let children = processes.filter { $0.parent == id }
        return children + children.flatMap { $0.descendants(among: processes) }
    }

    /// A /proc file's bytes, read to its end (its size reads as 0); nil once the process is gone.
    private static func read(_ path: String) -> Data? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        return try? file.readToEnd()
    }
}

/// The processes a watching task saw, read by the test once it is done.
private final class SeenProcesses: Sendable {
    private let seen = Mutex<[Int32: ProcessEntry]>([:])

    /// Keeps each process as first seen (its state then).
    func add(_ processes: [ProcessEntry]) {
        seen.withLock { seen in
            for process in processes where seen[process.id]?.startTime != process.startTime { seen[process.id] = process }
        }
    }

    var all: [ProcessEntry] { seen.withLock { Array($0.values) } }
}
