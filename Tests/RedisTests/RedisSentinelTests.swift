import Foundation
import LocalStack
import PushlineTestKit
import Redis
import Testing

@Suite("Redis Sentinel: the master found through the sentinels, found again after a failover")
struct RedisSentinelTests {
    static func configuration(_ group: RedisSentinelGroup) -> RedisConfiguration {
        RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 1), connectTimeout: .seconds(5), commandTimeout: .seconds(5),
                           reconnect: RedisReconnectPolicy(maximumRetries: 3, initialDelay: .milliseconds(50)),
                           topology: .sentinel(RedisSentinelConfiguration(masterName: group.masterName,
                                                                          sentinels: group.sentinelPorts.map { .tcp(host: "127.0.0.1", port: $0) })))
    }

    @Test("writes go to the master the sentinels name, which answers ROLE as master")
    func findsTheMaster() async throws {
        let group = try await DedicatedThread.run { try RedisSentinelGroup() }
        let configuration = Self.configuration(group)
        let role = try await withConnection(configuration) { connection in
            _ = try connection.send(RedisCommand("SET", "found", "master"))
            return try connection.send(RedisCommand("ROLE"))
        }
        #expect(role.array?.first?.string == "master")
        let masterPort = try group.masterPort()
        #expect(try await DedicatedThread.run { try RedisCommandLine.run(port: masterPort, ["GET", "found"]) } == "master\n")
    }

    @Test("SENTINEL FAILOVER mid-run: writes resume on the promoted replica, every batch acknowledged lands there")
    func followsFailover() async throws {
        let group = try await DedicatedThread.run { try RedisSentinelGroup() }
        let configuration = Self.configuration(group)
        let before = try group.masterPort()
        try await withConnection(configuration) { connection in
            for batch in 0..<40 {
                if batch == 10 { try group.failover() }
                let commands = (0..<50).map { RedisCommand("SET", "batch:\(batch):\($0)", "x") }
                _ = try retryingRetryable { () throws(RedisError) in try requireOK(connection.pipeline(commands)) }
            }
        }
        let after = try group.masterPort()
        #expect(after != before)
        let keys = try await DedicatedThread.run { try RedisCommandLine.run(port: after, ["DBSIZE"]) }
        #expect(keys == "\(40 * 50)\n")
    }
}
