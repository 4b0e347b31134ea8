import Foundation
import LocalStack
import PushlineTestKit
import Redis
import Testing

/// A redis-server with TLS on a second port (the plain one stays for `redis-cli` checks).
struct TLSRedis: Sendable {
    let files: RedisTLSFiles
    let server: RedisServer
    let tlsPort: Int

    static func start(requireClientCertificates: Bool = false) async throws -> TLSRedis {
        try await DedicatedThread.run {
            let files = try RedisTLSFiles()
            let tlsPort = try FreePort.next()
            let server = try RedisServer(extraArguments: files.serverArguments(port: tlsPort, requireClientCertificates: requireClientCertificates))
            return TLSRedis(files: files, server: server, tlsPort: tlsPort)
        }
    }

    func configuration(host: String = "127.0.0.1", _ tls: RedisTLSConfiguration) -> RedisConfiguration {
        RedisConfiguration(endpoint: .tcp(host: host, port: tlsPort), connectTimeout: .seconds(10), commandTimeout: .seconds(10),
                           reconnect: RedisReconnectPolicy(maximumRetries: 3, initialDelay: .milliseconds(20)), tls: tls)
    }
}

@Suite("Redis over TLS: verified by default, client certificates, reconnects")
struct RedisTLSTests {
    @Test("verified against the CA file, one command and a pipeline of 2000 go over TLS")
    func verifiedPipeline() async throws {
        let redis = try await TLSRedis.start()
        let configuration = redis.configuration(RedisTLSConfiguration(certificateAuthorityFile: redis.files.certificateAuthorityFile))
        let replies = try await withConnection(configuration) { connection in
            _ = try connection.send(RedisCommand("SET", "over", "tls"))
            return try connection.pipeline((0..<2000).map { RedisCommand("SET", "key:\($0)", String(repeating: "v", count: 100)) })
        }
        #expect(replies.count == 2000)
        #expect(replies.allSatisfy { $0 == .status("OK") })
        #expect(try await redis.server.cli("GET", "over") == "tls\n")
        #expect(try await redis.server.cli("DBSIZE") == "2001\n")
    }

    @Test("the host name is checked too: localhost, which the certificate names, connects")
    func verifiesByName() async throws {
        let redis = try await TLSRedis.start()
        let configuration = redis.configuration(host: "localhost", RedisTLSConfiguration(certificateAuthorityFile: redis.files.certificateAuthorityFile))
        let pong = try await withConnection(configuration) { try $0.send(RedisCommand("PING")) }
        #expect(pong == .status("PONG"))
    }

    @Test("a server certificate no trusted CA signs is refused with redis_tls, not retryable")
    func untrustedCertificateIsRefused() async throws {
        let redis = try await TLSRedis.start()
        let configuration = redis.configuration(RedisTLSConfiguration())
        let error = try await DedicatedThread.run { redisError { try RedisConnection(configuration: configuration) } }
        #expect(error?.code == .tls)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("certificate") == true)
    }

    @Test("insecure_skip_verify connects to a server no trusted CA vouches for")
    func insecureSkipVerify() async throws {
        let redis = try await TLSRedis.start()
        let configuration = redis.configuration(RedisTLSConfiguration(insecureSkipVerify: true))
        let pong = try await withConnection(configuration) { try $0.send(RedisCommand("PING")) }
        #expect(pong == .status("PONG"))
    }

    @Test("a server that requires client certificates accepts ours and refuses a client without one")
    func clientCertificate() async throws {
        let redis = try await TLSRedis.start(requireClientCertificates: true)
        let withCertificate = redis.configuration(RedisTLSConfiguration(certificateAuthorityFile: redis.files.certificateAuthorityFile,
                                                                        certificateFile: redis.files.clientCertificateFile,
                                                                        privateKeyFile: redis.files.clientKeyFile))
        let pong = try await withConnection(withCertificate) { try $0.send(RedisCommand("PING")) }
        #expect(pong == .status("PONG"))
        let without = redis.configuration(RedisTLSConfiguration(certificateAuthorityFile: redis.files.certificateAuthorityFile))
        let error = try await DedicatedThread.run { redisError { try RedisConnection(configuration: without).send(RedisCommand("PING")) } }
        #expect(error != nil)
    }

    @Test("an idle TLS connection stays the same connection")
    func idleConnectionIsKept() async throws {
        let redis = try await TLSRedis.start()
        let configuration = redis.configuration(RedisTLSConfiguration(certificateAuthorityFile: redis.files.certificateAuthorityFile))
        let ids = try await withConnection(configuration) { connection in
            let first = try connection.send(RedisCommand("CLIENT", "ID"))
            usleep(200_000)
            let second = try connection.send(RedisCommand("CLIENT", "ID"))
            return [first, second]
        }
        #expect(ids[0] == ids[1])
    }

    @Test("after the server restarts, the next call reconnects over TLS")
    func reconnectsAfterRestart() async throws {
        let redis = try await TLSRedis.start()
        let configuration = redis.configuration(RedisTLSConfiguration(certificateAuthorityFile: redis.files.certificateAuthorityFile))
        let server = redis.server
        let value = try await withConnection(configuration) { connection in
            _ = try connection.send(RedisCommand("PING"))
            try server.restart()
            _ = try connection.send(RedisCommand("SET", "after", "restart"))
            return try connection.send(RedisCommand("GET", "after"))
        }
        #expect(value.string == "restart")
    }
}
