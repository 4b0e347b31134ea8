import Foundation
import Synchronization

/// A real `redis-server` (Debian package redis-server) for tests, the demo and benchmarks: its own temporary
/// directory, a free TCP port on 127.0.0.1, optionally a password and a Unix socket, no persistence
/// (`--save '' --appendonly no`). Stopped when released.
public final class RedisServer: Sendable {
    /// The TCP port on 127.0.0.1; it stays the same across ``restart()``.
    public let port: Int
    /// The Unix socket's path, when asked for one.
    public let unixSocketPath: String?
    /// The `requirepass` password, when asked for one.
    public let password: String?
    /// Where the server keeps its files (`--dir`).
    public let directory: URL
    /// Arguments added to the command line (TLS, cluster or replica settings), kept for restarts.
    private let extraArguments: [String]
    private let executable: String
    /// The running server.
    private let process: Mutex<ServerProcess?>

    /// Starts a server and waits until it answers `PING`; blocks, so async code calls it from a
    /// thread of its own. Throws, naming the Debian package, when
    /// `redis-server` or `redis-cli` is not installed.
    ///
    /// `extraArguments` are added to the command line (`--tls-port …`, `--cluster-enabled yes`,
    /// `--replicaof …`); `portLimit` bounds the port picked (a cluster node's bus port is the port + 10000).
    ///
    /// The port is drawn from 20000 up to `portLimit`, below Linux's ephemeral ports (32768–60999
    /// by default): a server restarted on its port (``restart()``, ``crashAndRestart()``) would
    /// otherwise find it taken by an outgoing connection's local port meanwhile — even by a client
    /// reconnecting to the server itself, whose connection to 127.0.0.1 from that same port
    /// connects to itself.
    public init(password: String? = nil, unixSocket: Bool = false, extraArguments: [String] = [], portLimit: Int = 32_768) throws {
        executable = try ExternalCommand.locate("redis-server", package: "redis-server")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-redis-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.password = password
        unixSocketPath = unixSocket ? directory.appendingPathComponent("redis.sock").path : nil
        process = Mutex(nil)
        self.extraArguments = extraArguments
        // A port picked at random may be taken: a few tries, each noticed by the server exiting.
        var lastError: (any Error)?
        for candidate in (0..<5).map({ _ in Int.random(in: 20_000..<portLimit) }) {
            do {
                let started = try Self.start(executable, port: candidate, directory: directory, password: password, unixSocket: unixSocketPath,
                                             extraArguments: extraArguments)
                process.withLock { $0 = started }
                port = candidate
                return
            } catch {
                lastError = error
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw lastError ?? LocalStackError("redis-server did not start")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The running server's process id; `nil` while stopped.
    public var processID: pid_t? {
        process.withLock { $0?.processID }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 seconds) and waits for it to exit; blocks.
    public func stop() {
        process.withLock { process in defer { process = nil }; return process }?.stop()
    }

    /// Stops the server and starts a new one on the same port, socket and password, empty; blocks.
    public func restart() throws {
        stop()
        let started = try Self.start(executable, port: port, directory: directory, password: password, unixSocket: unixSocketPath,
                                     extraArguments: extraArguments)
        process.withLock { $0 = started }
    }

    /// Kills the server with SIGKILL (nothing saved, as a crash) and starts a new one on the same
    /// port, socket and password, empty; blocks.
    public func crashAndRestart() throws {
        if let crashed = process.withLock({ process in defer { process = nil }; return process }) {
            crashed.send(signal: SIGKILL)
            _ = crashed.waitForExit()
        }
        let started = try Self.start(executable, port: port, directory: directory, password: password, unixSocket: unixSocketPath,
                                     extraArguments: extraArguments)
        process.withLock { $0 = started }
    }

    /// The keys of idempotency claims that are still `pending` (docs/pipeline-stores.md: a delivery
    /// claimed and not settled; a worker's claims read `pending <owner>`), read with `redis-cli`.
    public func pendingClaimKeys() throws -> Set<String> {
        let cli = try ExternalCommand.locate("redis-cli", package: "redis-tools")
        let script = "local r={} for _,k in ipairs(redis.call('KEYS','pushline:claim:*')) do "
            + "local v=redis.call('GET',k) if v and string.sub(v,1,7)=='pending' then table.insert(r,k) end end return r"
        var arguments = ["-h", "127.0.0.1", "-p", String(port)]
        if let password { arguments += ["-a", password, "--no-auth-warning"] }
        let result = try ExternalCommand.run(cli, arguments + ["EVAL", script, "0"])
        return Set(result.standardOutput.split(separator: "\n").map(String.init).filter { !$0.isEmpty })
    }

    /// Starts `redis-server` (logging to its standard output, which ``ServerProcess`` keeps) and
    /// waits up to 10 seconds until it logs that it accepts connections and then answers `PING`
    /// through `redis-cli` (`NOAUTH` counts: the server is up and wants its password).
    private static func start(_ executable: String, port: Int, directory: URL, password: String?, unixSocket: String?,
                              extraArguments: [String]) throws -> ServerProcess {
        let cli = try ExternalCommand.locate("redis-cli", package: "redis-tools")
        var arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--dir", directory.path,
            "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "",
        ]
        if let password { arguments += ["--requirepass", password] }
        if let unixSocket { arguments += ["--unixsocket", unixSocket, "--unixsocketperm", "700"] }
        arguments += extraArguments
        let server = try ServerProcess(executable, arguments)
        let deadline = Deadline(after: .seconds(10))
        while !deadline.hasPassed {
            guard server.isRunning else {
                let lastLines = server.log.split(separator: "\n").suffix(3).joined(separator: "\n")
                throw LocalStackError("redis-server exited at start on port \(port): \(lastLines)")
            }
            if server.log.contains("Ready to accept connections") {
                let answer = try ExternalCommand.run(cli, ["-h", "127.0.0.1", "-p", String(port), "ping"]).standardOutput
                if answer.contains("PONG") || answer.contains("NOAUTH") { return server }
            }
            usleep(10_000)
        }
        server.stop(graceMilliseconds: 0)
        throw LocalStackError("redis-server on port \(port) was not ready within 10 seconds; its log is \(server.logFile)")
    }
}
