import Foundation
import Synchronization

/// A real `redis-server` (Debian package redis-server) for tests and benchmarks: its own temporary
/// directory, a free TCP port on 127.0.0.1, optionally a password and a Unix socket, no persistence
/// (`--save '' --appendonly no`). Stopped when released.
public final class RedisServer: Sendable {
    /// The TCP port on 127.0.0.1; it stays the same across ``restart()``.
    public let port: Int
    /// The Unix socket's path, when asked for one.
    public let unixSocketPath: String?
    /// The `requirepass` password, when asked for one.
    public let password: String?
    private let directory: URL
    private let executable: String
    /// The running server's process id.
    private let process: Mutex<pid_t?>

    /// Starts a server and waits until it accepts connections; blocks, so call it from a thread of
    /// its own (``start(password:unixSocket:)`` does that). Throws, naming the Debian package, when
    /// `redis-server` is not installed.
    public init(password: String? = nil, unixSocket: Bool = false) throws {
        executable = try ExternalCommand.locate("redis-server", package: "redis-server")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-redis-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.password = password
        unixSocketPath = unixSocket ? directory.appendingPathComponent("redis.sock").path : nil
        process = Mutex(nil)
        // A port picked at random may be taken: a few tries, each noticed by the server exiting.
        var lastError: (any Error)?
        for candidate in (0..<5).map({ _ in Int.random(in: 20_000..<60_000) }) {
            do {
                let started = try Self.start(executable, port: candidate, directory: directory, password: password, unixSocket: unixSocketPath)
                process.withLock { $0 = started }
                port = candidate
                return
            } catch {
                lastError = error
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw lastError ?? TestKitError("redis-server did not start")
    }

    /// Starts a server from async code, on a thread of its own (starting one waits for it).
    public static func start(password: String? = nil, unixSocket: Bool = false) async throws -> RedisServer {
        try await DedicatedThread.run { try RedisServer(password: password, unixSocket: unixSocket) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 seconds) and waits for it to exit; blocks.
    public func stop() {
        guard let pid = process.withLock({ process in defer { process = nil }; return process }) else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while !Self.hasExited(pid), Date() < deadline { usleep(5_000) }
        if !Self.hasExited(pid) {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Stops the server and starts a new one on the same port, socket and password, empty; blocks.
    public func restart() throws {
        stop()
        let started = try Self.start(executable, port: port, directory: directory, password: password, unixSocket: unixSocketPath)
        process.withLock { $0 = started }
    }

    /// Runs `redis-cli` (Debian package redis-tools) against this server and returns what it
    /// prints: checks that share no code with Pushline's client. Runs on a thread of its own.
    public func cli(_ arguments: String...) async throws -> String {
        let cli = try ExternalCommand.locate("redis-cli", package: "redis-tools")
        let authentication = password.map { ["--no-auth-warning", "-a", $0] } ?? []
        let command = ["-h", "127.0.0.1", "-p", String(port)] + authentication + arguments
        return try await DedicatedThread.run { try ExternalCommand.run(cli, command).standardOutput }
    }

    /// Starts `redis-server` and waits up to 10 seconds until it logs that it accepts connections.
    /// (Watching the log needs no client and no child process: the readiness check cannot block on
    /// anything but the clock.)
    private static func start(_ executable: String, port: Int, directory: URL, password: String?, unixSocket: String?) throws -> pid_t {
        let log = directory.appendingPathComponent("redis.log")
        try? FileManager.default.removeItem(at: log)
        var arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--dir", directory.path,
            "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", log.path,
        ]
        if let password { arguments += ["--requirepass", password] }
        if let unixSocket { arguments += ["--unixsocket", unixSocket, "--unixsocketperm", "700"] }
        let pid = try spawn(executable, arguments)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard !hasExited(pid) else {
                let lastLines = text.split(separator: "\n").suffix(3).joined(separator: "\n")
                throw TestKitError("redis-server exited at start on port \(port): \(lastLines)")
            }
            if text.contains("Ready to accept connections") { return pid }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        throw TestKitError("redis-server on port \(port) was not ready within 10 seconds; its log is \(log.path)")
    }

    /// Starts a child with the default signal mask and dispositions, output to /dev/null and no other
    /// descriptors. Not Foundation's `Process`: a child spawned from a thread that blocks signals
    /// inherits the mask, and a redis-server with SIGTERM blocked never stops.
    private static func spawn(_ executable: String, _ arguments: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else is inherited: a server holding the write end of another child's output pipe
        // (from `ExternalCommand.run` on another thread) would keep that reader from ever seeing EOF.
        // glibc has had `posix_spawn_file_actions_addclosefrom_np` since 2.34, but Swift's Glibc
        // module does not show it: look it up.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestKitError("this C library lacks posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later is needed)")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else { throw TestKitError("cannot start \(executable): \(String(cString: strerror(status)))") }
        return pid
    }

    /// Whether the child has exited (reaping it if so).
    private static func hasExited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) != 0
    }
}
