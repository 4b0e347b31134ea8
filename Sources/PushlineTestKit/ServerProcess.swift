import Foundation

/// A long-running program started for a test (a server such as `nghttpd` or `redis-server`), with
/// its output in a log file. Stopped with SIGTERM (then SIGKILL after a grace period) and reaped.
public final class ServerProcess: @unchecked Sendable {
    // Safe to share: `processID` is set once in `init`; `stop` is idempotent through `stopped`,
    // which only the owning test calls.
    public let processID: pid_t
    /// Where the program's standard output and error go.
    public let logFile: String
    private var stopped = false

    /// Starts `executable` with `arguments`. Throws with the program's name when it cannot start.
    public init(_ executable: String, _ arguments: [String]) throws {
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-\(UUID().uuidString).log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else {
            throw TestKitError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        processID = pid
    }

    deinit {
        stop()
    }

    /// Whether the program is still running.
    public var isRunning: Bool {
        var status: Int32 = 0
        return !stopped && waitpid(processID, &status, WNOHANG) == 0
    }

    /// What the program printed so far.
    public var log: String {
        (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` without waiting (for tests of signal handling).
    public func send(signal: Int32) {
        kill(processID, signal)
    }

    /// Stops the program and waits for it; returns its exit status (or 128 + signal).
    @discardableResult
    public func stop(graceMilliseconds: Int = 5000) -> Int32 {
        guard !stopped else { return 0 }
        stopped = true
        kill(processID, SIGTERM)
        return Self.reap(processID, graceMilliseconds: graceMilliseconds)
    }

    /// Waits for the program to end by itself (after a signal it was sent), up to the grace period.
    public func waitForExit(graceMilliseconds: Int = 5000) -> Int32 {
        stopped = true
        return Self.reap(processID, graceMilliseconds: graceMilliseconds)
    }

    private static func reap(_ pid: pid_t, graceMilliseconds: Int) -> Int32 {
        var status: Int32 = 0
        for _ in 0..<max(graceMilliseconds / 10, 1) {
            if waitpid(pid, &status, WNOHANG) == pid { return decode(status) }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return decode(status)
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
