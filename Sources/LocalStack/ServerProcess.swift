import Foundation

/// A long-running program started for a test, the demo or a benchmark (a server such as `nghttpd`,
/// `redis-server` or `apns-sim`, or `pushline run`), with its output in a log file. Stopped with
/// SIGTERM (then SIGKILL after a grace period) and reaped.
public final class ServerProcess: @unchecked Sendable {
    // Safe to share: `processID` is set once in `init`; `stop` is idempotent through `stopped`,
    // which, like `exitStatus`, only the owner changes.
    public let processID: pid_t
    /// Where the program's standard output and error go.
    public let logFile: String
    private var stopped = false
    /// The write end of the program's standard input, when it was given one (else -1: /dev/null).
    private let input: Int32

    /// Starts `executable` with `arguments`. Throws with the program's name when it cannot start.
    /// `environment` adds to (or replaces in) this process's environment. With `standardInput` the
    /// program reads what ``writeLine(_:)`` sends (a command channel, e.g. `pushline-dev dev-kafka`'s);
    /// otherwise it reads /dev/null.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], standardInput: Bool = false) throws {
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-\(UUID().uuidString).log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pipeEnds: [Int32] = [-1, -1]
        if standardInput {
            guard pipe(&pipeEnds) == 0 else { throw LocalStackError("cannot make a pipe for \(executable)'s standard input") }
            // Neither end leaks into programs started later (the child gets its end through dup2).
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        defer { if pipeEnds[0] >= 0 { close(pipeEnds[0]) } }
        try Self.closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Self.restoreDefaultSignals(&attributes)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
            .map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { variables.forEach { free($0) } }
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, variables)
        guard result == 0 else {
            if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
            throw LocalStackError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        processID = pid
        input = pipeEnds[1]
    }

    deinit {
        stop()
        if input >= 0 { close(input) }
    }

    /// Writes `line` and a newline to the program's standard input (started with `standardInput`).
    public func writeLine(_ line: String) throws {
        guard input >= 0 else { throw LocalStackError("\(logFile): the program was started without a standard input to write to") }
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw LocalStackError("cannot write to the program's standard input: \(String(cString: strerror(errno)))") }
    }

    /// Whether the program is still running (once it has exited, it is reaped and stays stopped).
    public var isRunning: Bool {
        var status: Int32 = 0
        guard !stopped else { return false }
        switch waitpid(processID, &status, WNOHANG) {
        case 0:
            return true
        case processID:
            exitStatus = Self.decode(status)
            stopped = true
            return false
        default:
            stopped = true
            return false
        }
    }

    /// The exit status (or 128 + signal) once ``isRunning`` has seen the program end by itself.
    public private(set) var exitStatus: Int32?

    /// What the program printed so far; bytes that are not UTF-8 become U+FFFD rather than the
    /// whole log reading as empty.
    public var log: String {
        FileManager.default.contents(atPath: logFile).map { String(decoding: $0, as: UTF8.self) } ?? ""
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
        if let exitStatus { return exitStatus }
        stopped = true
        return Self.reap(processID, graceMilliseconds: graceMilliseconds)
    }

    /// Nothing but standard input, output and error is inherited: a server holding the write end of
    /// another child's output pipe (`ExternalCommand.run` on another thread) would keep that reader
    /// from ever seeing EOF. glibc has had `posix_spawn_file_actions_addclosefrom_np` since 2.34,
    /// but Swift's Glibc module does not show it: look it up.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw LocalStackError("this C library lacks posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later is needed)")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// An empty signal mask and default dispositions for the child: spawned from a thread that
    /// blocks signals (a Dispatch or Foundation thread), it would inherit the mask, and a server with
    /// SIGTERM blocked never stops.
    private static func restoreDefaultSignals(_ attributes: inout posix_spawnattr_t) {
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
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
