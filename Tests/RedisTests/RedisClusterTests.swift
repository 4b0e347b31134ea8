import Foundation
import LocalStack
import PushlineTestKit
import Redis
import Testing

@Suite("Redis Cluster: keys routed by slot over three masters, MOVED and ASK followed, failover survived")
struct RedisClusterTests {
    static func configuration(_ cluster: RedisClusterGroup, seeds: Int = 1) -> RedisConfiguration {
        RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 1), connectTimeout: .seconds(5), commandTimeout: .seconds(5),
                           reconnect: RedisReconnectPolicy(maximumRetries: 3, initialDelay: .milliseconds(50)),
                           topology: .cluster(seeds: cluster.servers.prefix(seeds).map { .tcp(host: "127.0.0.1", port: $0.port) }))
    }

    @Test("a pipeline of 3000 keys from one seed lands on all three masters, every key once, and reads back in order")
    func routesBySlot() async throws {
        let cluster = try await DedicatedThread.run { try RedisClusterGroup() }
        let configuration = Self.configuration(cluster)
        let values = try await withConnection(configuration) { connection in
            try requireOK(connection.pipeline((0..<3000).map { RedisCommand("SET", "key:\($0)", "value:\($0)") }))
            return try connection.pipeline((0..<3000).map { RedisCommand("GET", "key:\($0)") }).map { $0.string ?? "" }
        }
        #expect(values == (0..<3000).map { "value:\($0)" })
        let perMaster = try await DedicatedThread.run {
            try cluster.masterPorts().map { Int(try RedisCommandLine.run(port: $0, ["DBSIZE"]).dropLast()) ?? -1 }
        }
        #expect(perMaster.count == 3)
        #expect(perMaster.reduce(0, +) == 3000)
        #expect(perMaster.allSatisfy { $0 > 0 })
    }

    @Test("keys that share a hash tag share a slot, so one script touches them all")
    func hashTagsShareASlot() async throws {
        let cluster = try await DedicatedThread.run { try RedisClusterGroup() }
        let script = RedisScript("redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[1]) return redis.call('GET', KEYS[2])")
        let reply = try await withConnection(Self.configuration(cluster)) { connection in
            try connection.evaluate(script, keys: ["pushline:{user-7}:a", "pushline:{user-7}:b"], arguments: ["both"])
        }
        #expect(reply.string == "both")
    }

    @Test("a connection whose slot map is out of date follows MOVED and ASK to the node that has the slot now")
    func followsRedirects() async throws {
        let cluster = try await DedicatedThread.run { try RedisClusterGroup() }
        let configuration = Self.configuration(cluster)
        let key = "moving-key"
        let values = try await withConnection(configuration) { connection in
            _ = try connection.send(RedisCommand("SET", key, "before"))
            var duringMigration = RedisReply.null
            try cluster.migrateSlot(ofKey: key) { duringMigration = try connection.send(RedisCommand("APPEND", key, ",asked")) }
            _ = try connection.send(RedisCommand("APPEND", key, ",moved"))
            return [duringMigration, try connection.send(RedisCommand("GET", key))]
        }
        #expect(values[0] == .integer(Int64("before,asked".utf8.count)))
        #expect(values[1].string == "before,asked,moved")
    }

    @Test("an MGET across slots is split by slot and joined: every key in its place, missing keys nil, beside other commands, through MOVED")
    func multiGetAcrossSlots() async throws {
        let cluster = try await DedicatedThread.run { try RedisClusterGroup() }
        let keys = (0..<200).map { "mget:\($0)" }
        let stored = stride(from: 0, to: 200, by: 3).map { $0 }
        let (mixed, afterMove) = try await withConnection(Self.configuration(cluster)) { connection in
            try requireOK(connection.pipeline(stored.map { RedisCommand("SET", keys[$0], "value:\($0)") }))
            let mixed = try connection.pipeline([RedisCommand("SET", "beside", "1"), RedisCommand("MGET", keys),
                                                 RedisCommand("INCR", "beside"), RedisCommand("MGET", keys[5], keys[3])])
            // The first key's slot moves unseen by the connection: the part with it meets MOVED.
            try cluster.migrateSlot(ofKey: keys[0]) {}
            return (mixed, try connection.send(RedisCommand("MGET", keys)))
        }
        let expected = RedisReply.array(keys.indices.map { stored.contains($0) ? .bulk(Array("value:\($0)".utf8)) : .null })
        #expect(mixed[0] == .status("OK"))
        #expect(mixed[1] == expected)
        #expect(mixed[2] == .integer(2))
        #expect(mixed[3] == .array([.null, .bulk(Array("value:3".utf8))]))
        #expect(afterMove == expected)
    }

    @Test("CLUSTER FAILOVER mid-run: batches resume on the promoted replica and every acknowledged key is there once")
    func survivesFailover() async throws {
        let cluster = try await DedicatedThread.run { try RedisClusterGroup() }
        let configuration = Self.configuration(cluster, seeds: 6)
        let counters = try await withConnection(configuration) { connection in
            for batch in 0..<40 {
                if batch == 10 { try cluster.failover() }
                let commands = (0..<100).map { RedisCommand("INCR", "counter:\(batch):\($0)") }
                _ = try retryingRetryable { () throws(RedisError) in
                    let replies = try connection.pipeline(commands)
                    if let error = replies.lazy.compactMap(\.error).first { throw error }
                }
            }
            return try connection.pipeline((0..<40).flatMap { batch in (0..<100).map { RedisCommand("GET", "counter:\(batch):\($0)") } })
        }
        let stored = try await DedicatedThread.run { try cluster.countKeys(matching: "counter:*") }
        #expect(stored == 4000)
        #expect(counters.allSatisfy { $0.string != nil })
    }
}
