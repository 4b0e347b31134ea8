import LocalStack

extension RedisServer {
    /// Starts a server from async code, on a thread of its own (starting one waits for it).
    public static func start(password: String? = nil, unixSocket: Bool = false) async throws -> RedisServer {
        try await DedicatedThread.run { try RedisServer(password: password, unixSocket: unixSocket) }
    }

    /// Runs `redis-cli` (Debian package redis-tools) against this server and returns what it
    /// prints: checks that share no code with Pushline's client. Runs on a thread of its own.
    public func cli(_ arguments: String...) async throws -> String {
        let cli = try ExternalCommand.locate("redis-cli", package: "redis-tools")
        let authentication = password.map { ["--no-auth-warning", "-a", $0] } ?? []
        let command = ["-h", "127.0.0.1", "-p", String(port)] + authentication + arguments
        return try await DedicatedThread.run { try ExternalCommand.run(cli, command).standardOutput }
    }
}
