import PushlineTestKit
import Redis
import Testing

@Suite("Redis commands and typed replies")
struct RedisReplyTests {
    @Test("SET answers a status and GET a bulk string")
    func statusAndBulk() async throws {
        let server = try await RedisServer.start()
        let replies = try await withConnection(server.configuration()) { redis in
            [try redis.send(RedisCommand("SET", "greeting", "hello")), try redis.send(RedisCommand("GET", "greeting"))]
        }
        #expect(replies == [.status("OK"), .bulk(Array("hello".utf8))])
        #expect(try await server.cli("GET", "greeting") == "hello\n")
    }

    @Test("binary keys and values with NUL, CR and LF bytes come back byte for byte")
    func binarySafe() async throws {
        let server = try await RedisServer.start()
        let key: [UInt8] = [0x6B, 0x00, 0x0D, 0x0A, 0xFF]
        let value: [UInt8] = [0x00, 0xFF, 0x0D, 0x0A, 0x00, 0x61, 0x00]
        let replies = try await withConnection(server.configuration()) { redis in
            var set = RedisCommand("SET")
            set.append(bytes: key)
            set.append(bytes: value)
            var get = RedisCommand("GET")
            get.append(bytes: key)
            var length = RedisCommand("STRLEN")
            length.append(bytes: key)
            return try redis.pipeline([set, get, length])
        }
        #expect(replies == [.status("OK"), .bulk(value), .integer(7)])
    }

    @Test("a command built argument by argument, one of them written in place, sends what was written")
    func builtInPlace() async throws {
        let server = try await RedisServer.start()
        let value: [UInt8] = Array("sent [\"pushline.intents\",3,42]".utf8) + [0x00, 0xFF]
        let replies = try await withConnection(server.configuration()) { redis in
            // Less room than the arguments take: the buffers grow as needed.
            var set = RedisCommand(reservingBytes: 8, arguments: 2)
            set.append("SET")
            set.append("claim")
            set.append(writing: { bytes in bytes.append(contentsOf: value) })
            set.append("PX")
            set.append(60_000)
            #expect(set.name == "SET" && set.count == 5)
            return try redis.pipeline([set, RedisCommand("GET", "claim"), RedisCommand("PTTL", "claim")])
        }
        #expect(Array(replies.prefix(2)) == [.status("OK"), .bulk(value)])
        #expect((replies[2].integer ?? 0) > 0)
    }

    @Test("a value larger than the read buffer arrives whole")
    func largeValue() async throws {
        let server = try await RedisServer.start()
        let value = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reply = try await withConnection(server.configuration()) { redis in
            var set = RedisCommand("SET", "large")
            set.append(bytes: value)
            _ = try redis.send(set)
            return try redis.send(RedisCommand("GET", "large"))
        }
        #expect(reply.bytes == value)
    }

    @Test("a missing key and a SET NX that does not set are nil")
    func nilReplies() async throws {
        let server = try await RedisServer.start()
        let replies = try await withConnection(server.configuration()) { redis in
            try redis.pipeline([
                RedisCommand("GET", "missing"),
                RedisCommand("SET", "claim", "pending", "NX", "PX", "60000"),
                RedisCommand("SET", "claim", "pending", "NX", "PX", "60000"),
            ])
        }
        #expect(replies == [.null, .status("OK"), .null])
    }

    @Test("integers, negative integers and arrays with nil elements are typed")
    func integersAndArrays() async throws {
        let server = try await RedisServer.start()
        let replies = try await withConnection(server.configuration()) { redis in
            var decrement = RedisCommand("INCRBY", "counter")
            decrement.append(-42)
            return try redis.pipeline([
                decrement,
                RedisCommand("RPUSH", "list", "a", "b", "c"),
                RedisCommand("LRANGE", "list", "0", "-1"),
                RedisCommand("MGET", "counter", "missing"),
                RedisCommand("LRANGE", "missing", "0", "-1"),
            ])
        }
        #expect(replies[0] == .integer(-42))
        #expect(replies[1] == .integer(3))
        #expect(replies[2] == .array([.bulk(Array("a".utf8)), .bulk(Array("b".utf8)), .bulk(Array("c".utf8))]))
        #expect(replies[3] == .array([.bulk(Array("-42".utf8)), .null]))
        #expect(replies[4] == .array([]))
    }

    @Test("nested arrays keep their shape, and an array split across reads arrives whole")
    func nestedAndLargeArrays() async throws {
        let server = try await RedisServer.start()
        let count = 20_000
        let replies = try await withConnection(server.configuration()) { redis in
            var push = RedisCommand("RPUSH", "numbers")
            for index in 0..<count { push.append(index) }
            return try redis.pipeline([
                RedisCommand("EVAL", "return {1, {2, 'x', false, {}}, {}}", "0"),
                push,
                RedisCommand("LRANGE", "numbers", "0", "-1"),
            ])
        }
        let nested: RedisReply = .array([.integer(1), .array([.integer(2), .bulk(Array("x".utf8)), .null, .array([])]), .array([])])
        #expect(replies[0] == nested)
        #expect(replies[1] == .integer(Int64(count)))
        #expect(replies[2] == .array((0..<count).map { .bulk(Array(String($0).utf8)) }))
    }

    @Test("a server error from send is thrown with its prefix and is not retryable")
    func serverErrorThrown() async throws {
        let server = try await RedisServer.start()
        let errors = try await withConnection(server.configuration()) { redis in
            _ = try redis.send(RedisCommand("SET", "text", "value"))
            return [RedisCommand("LPUSH", "text", "x"), RedisCommand("NOSUCHCOMMAND")].map { command in
                redisError { try redis.send(command) }
            }
        }
        #expect(errors[0]?.code == .serverError)
        #expect(errors[0]?.serverErrorPrefix == "WRONGTYPE")
        #expect(errors[0]?.isRetryable == false)
        #expect(errors[1]?.serverErrorPrefix == "ERR")
    }

    @Test("a command's description names it but never shows its arguments")
    func commandDescriptionHidesArguments() {
        var command = RedisCommand("AUTH", "pushline", "s3cret-password")
        command.append(7)
        #expect(command.description == "AUTH (3 arguments)")
        #expect(!String(reflecting: command).contains("s3cret"))
        var dumped = ""
        dump(command, to: &dumped)
        #expect(!dumped.contains("115, 51, 99"))
    }
}
