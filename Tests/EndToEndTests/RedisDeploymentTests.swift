import Foundation
import LocalStack
import PushlineTestKit
import Testing

/// Two `pushline run` members of one group against a Redis Cluster, a Sentinel-watched master and
/// a TLS redis-server, each with one failover mid-run: every intent gets one outcome, and no
/// device is notified twice (counted, not deduplicated).
@Suite("pushline run on Redis Cluster, Sentinel and TLS: two workers, a failover mid-run", .serialized, .timeLimit(.minutes(5)))
struct RedisDeploymentTests {
    @Test("Redis Cluster, CLUSTER FAILOVER mid-run")
    func cluster() async throws {
        try await DedicatedThread.run(timeout: .seconds(280)) {
            let cluster = try RedisClusterGroup()
            let nodes = cluster.servers.map { "127.0.0.1:\($0.port)" }.joined(separator: ", ")
            try Self.twoWorkers(redisSettings: ["  mode: cluster", "  nodes: [\(nodes)]"]) { _ = try cluster.failover() }
        }
    }

    @Test("Redis Sentinel, SENTINEL FAILOVER mid-run")
    func sentinel() async throws {
        try await DedicatedThread.run(timeout: .seconds(280)) {
            let group = try RedisSentinelGroup()
            let sentinels = group.sentinelPorts.map { "127.0.0.1:\($0)" }.joined(separator: ", ")
            try Self.twoWorkers(redisSettings: ["  mode: sentinel", "  sentinel:", "    master_name: \(group.masterName)",
                                                "    addresses: [\(sentinels)]"]) { try group.failover() }
        }
    }

    @Test("TLS, the server restarted mid-run (SHUTDOWN SAVE, as a Redis with persistence)")
    func tls() async throws {
        try await DedicatedThread.run(timeout: .seconds(280)) {
            let files = try RedisTLSFiles()
            let tlsPort = try FreePort.next()
            let server = try RedisServer(extraArguments: files.serverArguments(port: tlsPort, requireClientCertificates: false))
            try Self.twoWorkers(redisSettings: ["  host: 127.0.0.1", "  port: \(tlsPort)", "  tls: true",
                                                "  tls_ca_file: \(files.certificateAuthorityFile)"]) {
                _ = try RedisCommandLine.run(port: server.port, ["SHUTDOWN", "SAVE"])
                try server.restart()
            }
        }
    }

    /// Two ready workers with `redisSettings`, 2000 intents at 400/s, `failover` once a quarter of
    /// them have their outcome; then every outcome read back and the simulator's inbox counted.
    static func twoWorkers(redisSettings: [String], failover: () throws -> Void) throws {
        let stack = try EndToEndStack(partitions: 4)
        defer { stack.stop() }
        var workers: [ServerProcess] = []
        defer { for worker in workers { worker.stop() } }
        for _ in 0..<2 {
            var configuration = try stack.configuration()
            configuration.redisSettings = redisSettings
            let worker = try stack.startWorker(configuration)
            workers.append(worker)
            try WorkerEndpoints(port: try #require(configuration.metricsPort)).wait(for: "/readyz", status: 200)
        }
        let total = 2000
        let log = try OutcomeLog(stack)
        let publisher = stack.publishSteadily(0..<total, perSecond: 400)
        _ = try log.read(waitingFor: "outcomes before the failover") { $0.count >= total / 4 }
        try failover()
        try publisher.wait()
        let outcomes = try log.readAll(0..<total, timeout: .seconds(120))
        expectOneOutcomePerDelivery(outcomes, total: total)
        expectInboxOnce(stack, total: total)
        for worker in workers {
            #expect(worker.stop(graceMilliseconds: 40_000) == 0, "\(worker.log.suffix(2000))")
        }
    }
}
