import PushlineTestKit
import Redis

extension RedisServer {
    /// A configuration for this server over TCP, with short waits so failing tests end quickly.
    func configuration(
        password: String? = nil, username: String? = nil, database: Int = 0,
        commandTimeout: Duration = .seconds(10), reconnect: RedisReconnectPolicy = RedisReconnectPolicy(maximumRetries: 3, initialDelay: .milliseconds(20))
    ) -> RedisConfiguration {
        RedisConfiguration(
            endpoint: .tcp(host: "127.0.0.1", port: port), password: password ?? self.password, username: username,
            database: database, connectTimeout: .seconds(10), commandTimeout: commandTimeout, reconnect: reconnect
        )
    }
}

/// Connects with `configuration` and runs `body` on a thread of its own: a connection blocks, so it
/// never runs on the cooperative pool.
func withConnection<Result: Sendable>(
    _ configuration: RedisConfiguration, _ body: @escaping @Sendable (RedisConnection) throws -> Result
) async throws -> Result {
    try await DedicatedThread.run { try body(RedisConnection(configuration: configuration)) }
}

/// The value of `field` in a `CLIENT INFO` line (`id=7 addr=… db=3 …`).
func clientInfoField(_ field: String, in reply: RedisReply) -> String? {
    reply.string?.split(separator: " ").first { $0.hasPrefix("\(field)=") }.map { String($0.dropFirst(field.count + 1)) }
}

/// The ``RedisError`` that `body` throws, or `nil` when it returns. For use on a connection's own
/// thread, where `#expect` cannot see the running test (it is a task-local value): the test checks
/// what this returns once it is back on its task.
func redisError<Result>(_ body: () throws -> Result) -> RedisError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? RedisError
    }
}
