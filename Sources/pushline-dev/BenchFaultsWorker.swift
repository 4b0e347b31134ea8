import Foundation
import LocalStack
import Runtime

/// The `pushline run` of one row of `pushline-dev bench faults`, under a supervisor as a container
/// platform would keep it: a worker that exits by itself (not by the row's own signal) is counted
/// and started again, up to ``restartLimit`` times, so one that exits on input shows how often.
/// Used from the row's thread only.
final class BenchFaultsWorker {
    static let restartLimit = 5

    private let executable: String
    private let configurationFile: String
    private let environment: [String: String]
    private var process: ServerProcess
    /// Exit statuses of the exits the row did not cause, with the end of each one's log.
    private(set) var unexpectedExits: [(status: Int32, log: String)] = []

    init(configurationFile: String, environment: [String: String]) throws {
        executable = try RepositoryPaths.builtExecutable("pushline")
        self.configurationFile = configurationFile
        self.environment = environment
        process = try ServerProcess(executable, ["run", "--config", configurationFile], environment: environment)
    }

    deinit {
        process.stop(graceMilliseconds: 30_000)
    }

    /// Where the running worker's output goes.
    var logFile: String { process.logFile }

    /// Notices a worker that exited by itself and starts it again while under the limit.
    func supervise() throws {
        guard !process.isRunning, unexpectedExits.count < Self.restartLimit else { return }
        unexpectedExits.append((process.waitForExit(graceMilliseconds: 0), String(process.log.suffix(1500))))
        try start()
    }

    /// Sends `signal` and waits for the exit (up to `graceMilliseconds`, then SIGKILL); returns the
    /// exit status and how long the exit took.
    func signal(_ signal: Int32, graceMilliseconds: Int = 60_000) -> (status: Int32, took: Duration) {
        let sent = MonotonicClock.now
        process.send(signal: signal)
        let status = process.waitForExit(graceMilliseconds: graceMilliseconds)
        return (status, sent.duration(to: .now))
    }

    /// Starts a new `pushline run` (after ``signal(_:graceMilliseconds:)``).
    func start() throws {
        process = try ServerProcess(executable, ["run", "--config", configurationFile], environment: environment)
    }

    /// Stops the worker with SIGTERM; its exit status.
    func stop() -> Int32 {
        process.stop(graceMilliseconds: 60_000)
    }
}
