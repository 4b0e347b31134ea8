import Foundation
import PushlineTestKit
import Redis
import Testing

@Suite("Redis connections: AUTH, SELECT, Unix sockets, reconnect and timeouts")
struct RedisConnectionTests {
    static let password = "correct horse battery staple"

    @Test("AUTH with the password opens a server that requires one")
    func authenticates() async throws {
        let server = try await RedisServer.start(password: Self.password)
        let pong = try await withConnection(server.configuration()) { redis in try redis.send(RedisCommand("PING")) }
        #expect(pong == .status("PONG"))
    }

    @Test("AUTH with an ACL user name and password")
    func authenticatesAsACLUser() async throws {
        let server = try await RedisServer.start(password: Self.password)
        let created = try await server.cli("ACL", "SETUSER", "pushline", "on", ">pushline-secret", "~*", "+@all")
        #expect(created == "OK\n")
        let user = try await withConnection(server.configuration(password: "pushline-secret", username: "pushline")) { redis in
            try redis.send(RedisCommand("ACL", "WHOAMI"))
        }
        #expect(user.string == "pushline")
    }

    @Test("a wrong password fails with WRONGPASS, not retryable, and the password appears nowhere")
    func wrongPassword() async throws {
        let server = try await RedisServer.start(password: Self.password)
        let wrong = "not-the-password-8271"
        let configuration = server.configuration(password: wrong)
        let error = try await DedicatedThread.run {
            redisError { try RedisConnection(configuration: configuration) }
        }
        #expect(error?.serverErrorPrefix == "WRONGPASS")
        #expect(error?.isRetryable == false)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in ["\(String(describing: error))", "\(configuration)", String(reflecting: configuration), dumped] {
            #expect(!text.contains(wrong))
        }
    }

    @Test("no password against a server that requires one fails with NOAUTH")
    func missingPassword() async throws {
        let server = try await RedisServer.start(password: Self.password)
        var withoutPassword = server.configuration()
        withoutPassword.password = nil
        let configuration = withoutPassword
        let error = try await DedicatedThread.run {
            redisError { try RedisConnection(configuration: configuration) }
        }
        #expect(error?.serverErrorPrefix == "NOAUTH")
    }

    @Test("SELECT puts the connection in its database")
    func selectsDatabase() async throws {
        let server = try await RedisServer.start()
        let info = try await withConnection(server.configuration(database: 5)) { redis in
            _ = try redis.send(RedisCommand("SET", "in-five", "yes"))
            return try redis.send(RedisCommand("CLIENT", "INFO"))
        }
        #expect(clientInfoField("db", in: info) == "5")
        #expect(try await server.cli("-n", "5", "GET", "in-five") == "yes\n")
        #expect(try await server.cli("-n", "0", "EXISTS", "in-five") == "0\n")
    }

    @Test("over a Unix socket")
    func unixSocket() async throws {
        let server = try await RedisServer.start(unixSocket: true)
        let path = try #require(server.unixSocketPath)
        let configuration = RedisConfiguration(endpoint: .unixSocket(path: path), connectTimeout: .seconds(10))
        let replies = try await withConnection(configuration) { redis in
            try redis.pipeline([RedisCommand("SET", "over", "unix"), RedisCommand("CLIENT", "INFO")])
        }
        #expect(replies[0] == .status("OK"))
        #expect(clientInfoField("flags", in: replies[1])?.contains("U") == true)
    }

    @Test("a Unix socket path longer than the OS allows is a configuration error")
    func unixSocketPathTooLong() async throws {
        let configuration = RedisConfiguration(endpoint: .unixSocket(path: "/tmp/" + String(repeating: "x", count: 200)), reconnect: .never)
        let error = try await DedicatedThread.run {
            redisError { try RedisConnection(configuration: configuration) }
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("after the server restarts, the next call reconnects and runs AUTH and SELECT again")
    func reconnectsAfterRestart() async throws {
        let server = try await RedisServer.start(password: Self.password)
        let configuration = server.configuration(database: 3)
        let (before, after) = try await DedicatedThread.run {
            let redis = try RedisConnection(configuration: configuration)
            let before = try redis.send(RedisCommand("CLIENT", "INFO"))
            try server.restart()
            let after = try redis.send(RedisCommand("CLIENT", "INFO"))
            return (before, after)
        }
        #expect(clientInfoField("db", in: after) == "3")
        #expect(clientInfoField("user", in: after) == "default")
        #expect(clientInfoField("id", in: before) != nil)
        #expect(try await server.cli("-n", "3", "PING") == "PONG\n")
    }

    @Test("a stopped server refuses the connection, retryably; once it is back, calls work again")
    func refusedWhileStopped() async throws {
        let server = try await RedisServer.start()
        let configuration = server.configuration(reconnect: RedisReconnectPolicy(maximumRetries: 2, initialDelay: .milliseconds(10)))
        let (error, pong) = try await DedicatedThread.run {
            let redis = try RedisConnection(configuration: configuration)
            server.stop()
            let error = redisError { try redis.send(RedisCommand("PING")) }
            try server.restart()
            return (error, try redis.send(RedisCommand("PING")))
        }
        #expect(error?.code == .connectionRefused)
        #expect(error?.isRetryable == true)
        #expect(pong == .status("PONG"))
    }

    @Test("connecting to a server that never answers times out with the timeout error")
    func connectTimeout() async throws {
        let listener = try SilentListener()
        let configuration = RedisConfiguration(
            endpoint: .tcp(host: "127.0.0.1", port: listener.port), connectTimeout: .milliseconds(300), reconnect: .never
        )
        let error = try await DedicatedThread.run {
            redisError { try RedisConnection(configuration: configuration) }
        }
        #expect(error?.code == .timeout)
        #expect(error?.isRetryable == true)
        withExtendedLifetime(listener) {}
    }

    @Test("a command the server holds longer than the command timeout times out; the next call works")
    func commandTimeout() async throws {
        let server = try await RedisServer.start()
        let configuration = server.configuration(commandTimeout: .milliseconds(300))
        let (error, replies) = try await withConnection(configuration) { redis in
            let error = redisError { try redis.send(RedisCommand("BLPOP", "never-filled", "30")) }
            let connectedAfterTimeout = redis.isConnected
            let replies: [RedisReply] = [try redis.send(RedisCommand("ECHO", "after")), .integer(connectedAfterTimeout ? 1 : 0)]
            return (error, replies)
        }
        #expect(error?.code == .timeout)
        #expect(replies == [.bulk(Array("after".utf8)), .integer(0)])
    }

    @Test("backoff delays grow, stay within their jitter band and never pass the maximum")
    func backoffIsBounded() {
        let policy = RedisReconnectPolicy(maximumRetries: 10, initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        var random = SystemRandomNumberGenerator()
        for retry in 0..<10 {
            let ceiling = min(Duration.seconds(1), .milliseconds(100) * (1 << retry))
            let delay = policy.delay(beforeRetry: retry, using: &random)
            #expect(delay >= ceiling / 2 && delay <= ceiling)
        }
    }
}
