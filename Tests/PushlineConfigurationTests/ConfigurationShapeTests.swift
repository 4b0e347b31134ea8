import PushlineConfiguration
import PushlineTestKit
import Redis
import Testing

@Suite("Configuration shapes")
struct ConfigurationShapeTests {
    @Test("a section whose lines are all commented out holds the defaults")
    func emptySections() throws {
        let worker = ConfigurationFixture.validWorker + "\nredis:\n  # host: redis.internal\nkafka:\n  properties:\n"
        let configuration = try ConfigurationFixture(worker: worker).load()
        #expect(configuration.redis.endpoint == .tcp(host: "127.0.0.1", port: 6379))
        #expect(configuration.kafka.properties.isEmpty)
    }

    @Test("a Unix socket and a host together are refused")
    func socketAndHost() throws {
        let worker = ConfigurationFixture.validWorker + "\nredis:\n  host: redis.internal\n  unix_socket: /run/redis.sock\n"
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .invalidValue)
        #expect(error.key == "redis.unix_socket")
        #expect(error.line == 13)
    }

    @Test("certificate credentials name two files that exist")
    func certificateCredentials() throws {
        let fixture = try ConfigurationFixture()
        let certificate = try fixture.write("certificate\n", to: "apns-cert.pem")
        let key = try fixture.write("key\n", to: "apns-key.pem")
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(
            of: "  credentials:\n",
            with: "  credentials:\n    legacy:\n      certificate_file: apns-cert.pem\n      private_key_file: apns-key.pem\n")
        try fixture.write(worker, to: "pushline.yaml")
        guard case .certificate(let certificateFile, let privateKeyFile)? = try fixture.load().apns.credentials["legacy"] else {
            Issue.record("expected certificate credentials")
            return
        }
        #expect(certificateFile == certificate)
        #expect(privateKeyFile == key)
    }

    @Test("token and certificate settings in one entry are refused")
    func tokenAndCertificate() throws {
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(
            of: "      team_id: \(DevCredentials.teamID)",
            with: "      team_id: \(DevCredentials.teamID)\n      certificate_file: \(DevCredentials.publicKeyFile)")
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .invalidValue)
        #expect(error.key == "apns.credentials.dev.key_file")
    }
}
