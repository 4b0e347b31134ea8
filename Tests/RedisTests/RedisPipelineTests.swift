import PushlineTestKit
import Redis
import Testing

@Suite("Redis pipelining")
struct RedisPipelineTests {
    @Test("ten thousand commands in one call answer in order")
    func manyCommandsInOrder() async throws {
        let server = try await RedisServer.start()
        let count = 10_000
        let replies = try await withConnection(server.configuration()) { redis in
            var commands: [RedisCommand] = []
            for index in 0..<count {
                var set = RedisCommand("SET", "key:\(index)")
                set.append(index)
                commands += [set, RedisCommand("GET", "key:\(index)"), RedisCommand("INCR", "counter")]
            }
            return try redis.pipeline(commands)
        }
        #expect(replies.count == 3 * count)
        for index in 0..<count {
            #expect(replies[3 * index] == .status("OK"))
            #expect(replies[3 * index + 1] == .bulk(Array(String(index).utf8)))
            #expect(replies[3 * index + 2] == .integer(Int64(index + 1)))
        }
        #expect(try await server.cli("DBSIZE") == "\(count + 1)\n")
    }

    @Test("error replies stay in their place among the others")
    func mixedErrors() async throws {
        let server = try await RedisServer.start()
        let replies = try await withConnection(server.configuration()) { redis in
            try redis.pipeline([
                RedisCommand("SET", "a", "1"),
                RedisCommand("LPUSH", "a", "x"),
                RedisCommand("GET", "a"),
                RedisCommand("NOSUCHCOMMAND", "a"),
                RedisCommand("INCR", "a"),
            ])
        }
        #expect(replies.count == 5)
        #expect(replies[0] == .status("OK"))
        #expect(replies[1].error?.serverErrorPrefix == "WRONGTYPE")
        #expect(replies[2] == .bulk(Array("1".utf8)))
        #expect(replies[3].error?.serverErrorPrefix == "ERR")
        #expect(replies[4] == .integer(2))
    }

    @Test("an empty pipeline answers nothing and the connection stays usable")
    func emptyPipeline() async throws {
        let server = try await RedisServer.start()
        let (empty, pong) = try await withConnection(server.configuration()) { redis in
            (try redis.pipeline([]), try redis.send(RedisCommand("PING")))
        }
        #expect(empty.isEmpty)
        #expect(pong == .status("PONG"))
    }
}
