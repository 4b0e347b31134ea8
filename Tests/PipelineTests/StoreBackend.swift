import LocalStack
import Pipeline
import PushlineTestKit
import Redis
import Testing

/// The implementations of the worker's stores. Every store behaviour test takes one as its
/// argument and runs against each, so the in-memory stores are held to the Redis ones' rules and
/// the Redis ones work the same on one server and on a Redis Cluster.
enum StoreBackend: CaseIterable, Sendable, CustomTestStringConvertible {
    /// `IdempotencyStore`, `CollapseWindow` and `TokenRegistry` on a fresh real redis-server.
    case redis
    /// The same stores on a fresh 3-master, 3-replica Redis Cluster (`redis.mode: cluster`).
    case redisCluster
    /// `InMemoryIdempotencyStore`, `InMemoryCollapseWindow` and `InMemoryTokenRegistry`.
    case inMemory

    var testDescription: String {
        switch self {
        case .redis: "Redis"
        case .redisCluster: "Redis Cluster"
        case .inMemory: "in memory"
        }
    }
}

/// Makes one backend's stores; those of a Redis backend share one connection to one server.
struct Stores {
    /// The connection to the test's redis-server; nil in memory.
    let connection: RedisConnection?
    /// How ``connection`` was made, for another connection to the same server(s) — another
    /// worker's; nil in memory.
    var configuration: RedisConfiguration? = nil

    func claims(_ configuration: IdempotencyStore.Configuration = IdempotencyStore.Configuration(), owner: String? = nil) -> any ClaimStore {
        guard let connection else { return InMemoryIdempotencyStore(configuration: configuration, owner: owner) }
        return IdempotencyStore(connection: connection, configuration: configuration, owner: owner)
    }

    func collapseWindow() -> any CollapseStore {
        connection.map { CollapseWindow(connection: $0) } ?? InMemoryCollapseWindow()
    }

    func rollingWindows() -> any RollingWindowStore {
        connection.map { RollingWindows(connection: $0) } ?? InMemoryRollingWindows()
    }

    func tokenRegistry() -> any TokenStore {
        connection.map { TokenRegistry(connection: $0) } ?? InMemoryTokenRegistry()
    }

    func throttle() -> any ThrottleStore {
        connection.map { RedisThrottle(connection: $0) } ?? InMemoryThrottle()
    }
}

/// Runs `body` with fresh stores of `backend` on a thread of its own (the Redis client blocks, so
/// never on the cooperative pool); a Redis backend gets a redis-server (or a cluster) of its own,
/// stopped on that thread before the result comes back. Left to its release, the server would stop
/// on whichever thread dropped it last, which may be after the test process has ended.
func withStores<Result: Sendable>(_ backend: StoreBackend, _ body: @escaping @Sendable (Stores) throws -> Result) async throws -> Result {
    switch backend {
    case .inMemory:
        return try await DedicatedThread.run { try body(Stores(connection: nil)) }
    case .redis:
        let server = try await RedisServer.start()
        return try await DedicatedThread.run {
            defer { server.stop() }
            let configuration = RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: server.port))
            return try body(Stores(connection: try RedisConnection(configuration: configuration), configuration: configuration))
        }
    case .redisCluster:
        let cluster = try await DedicatedThread.run { try RedisClusterGroup() }
        let seeds = cluster.servers.map { RedisConfiguration.Endpoint.tcp(host: "127.0.0.1", port: $0.port) }
        return try await DedicatedThread.run {
            defer { cluster.stop() }
            let configuration = RedisConfiguration(endpoint: seeds[0], topology: .cluster(seeds: seeds))
            return try body(Stores(connection: try RedisConnection(configuration: configuration), configuration: configuration))
        }
    }
}
