import PushlineTestKit
import Redis
import Testing

@Suite("Redis scripts with EVALSHA")
struct RedisScriptTests {
    /// Compare-and-delete, as used to release an idempotency claim.
    let release = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end
        """)
    let echo = RedisScript("return ARGV[1]")

    @Test("the SHA-1 computed locally is the one the server gives")
    func shaMatchesServer() async throws {
        let server = try await RedisServer.start()
        let loaded = try await server.cli("SCRIPT", "LOAD", release.source)
        #expect(loaded == release.sha1 + "\n")
    }

    @Test("EVALSHA loads a script the server does not know, then runs it")
    func loadsUnknownScript() async throws {
        let server = try await RedisServer.start()
        let script = release
        let replies = try await withConnection(server.configuration()) { redis in
            _ = try redis.send(RedisCommand("SET", "claim", "worker-1"))
            return [
                try redis.evaluate(script, keys: ["claim"], arguments: ["worker-2"]),
                try redis.evaluate(script, keys: ["claim"], arguments: ["worker-1"]),
            ]
        }
        #expect(replies == [.integer(0), .integer(1)])
        #expect(try await server.cli("SCRIPT", "EXISTS", script.sha1) == "1\n")
    }

    @Test("after SCRIPT FLUSH, EVALSHA reloads the script transparently")
    func reloadsAfterFlush() async throws {
        let server = try await RedisServer.start()
        let script = echo
        let replies = try await withConnection(server.configuration()) { redis in
            let first = try redis.evaluate(script, arguments: ["one"])
            _ = try redis.send(RedisCommand("SCRIPT", "FLUSH"))
            return [first, try redis.evaluate(script, arguments: ["two"])]
        }
        #expect(replies == [.bulk(Array("one".utf8)), .bulk(Array("two".utf8))])
    }

    @Test("in a pipeline, every EVALSHA that met NOSCRIPT is rerun after the others and keeps its place")
    func pipelinedReload() async throws {
        let server = try await RedisServer.start()
        let (echo, release) = (echo, release)
        let replies = try await withConnection(server.configuration()) { redis in
            try redis.pipeline([
                .evalSHA(echo, arguments: ["a"]),
                RedisCommand("SET", "claim", "worker-1"),
                .evalSHA(release, keys: ["claim"], arguments: ["worker-1"]),
                .evalSHA(echo, arguments: ["b"]),
                RedisCommand("EXISTS", "claim"),
            ])
        }
        // EXISTS ran in the first round trip, before the reloaded compare-and-delete.
        #expect(replies == [.bulk(Array("a".utf8)), .status("OK"), .integer(1), .bulk(Array("b".utf8)), .integer(1)])
        #expect(try await server.cli("EXISTS", "claim") == "0\n")
    }

    @Test("a script that does not compile answers with the compiler's error")
    func compileErrorReported() async throws {
        let server = try await RedisServer.start()
        let broken = RedisScript("return (")
        let error = try await withConnection(server.configuration()) { redis in
            redisError { try redis.evaluate(broken) }
        }
        #expect(error?.code == .serverError)
        #expect(error?.message.contains("compiling") == true)
    }
}
