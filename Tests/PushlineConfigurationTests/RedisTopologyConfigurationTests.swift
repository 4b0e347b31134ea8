import PushlineConfiguration
import Redis
import Testing

@Suite("redis.mode, nodes, sentinel and tls keys")
struct RedisTopologyConfigurationTests {
    @Test("mode: cluster reads the seed nodes from redis.nodes, or PUSHLINE_REDIS_NODES")
    func clusterNodes() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker
                                               + "\nredis:\n  mode: cluster\n  nodes: [10.0.0.1:7000, 10.0.0.2:7001]\n")
        #expect(try fixture.load().redis.topology == .cluster(seeds: [.tcp(host: "10.0.0.1", port: 7000), .tcp(host: "10.0.0.2", port: 7001)]))
        let overridden = try fixture.load(environment: ["PUSHLINE_REDIS_NODES": "10.0.0.9:7009"])
        #expect(overridden.redis.topology == .cluster(seeds: [.tcp(host: "10.0.0.9", port: 7009)]))
    }

    @Test("mode: cluster without nodes, or with a database other than 0, names the key and line")
    func clusterErrors() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  mode: cluster\n  database: 2\n")
        let errors = fixture.errors()
        #expect(errors.map(\.key).sorted() == ["redis.database", "redis.nodes"])
        #expect(errors.allSatisfy { $0.description.hasPrefix("\(fixture.file):") })
    }

    @Test("mode: sentinel reads the master name and the sentinels' addresses")
    func sentinel() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker
                                               + "\nredis:\n  mode: sentinel\n  sentinel:\n    master_name: pushline\n    addresses: [10.0.0.1:26379, 10.0.0.2:26379]\n")
        #expect(try fixture.load().redis.topology == .sentinel(RedisSentinelConfiguration(
            masterName: "pushline", sentinels: [.tcp(host: "10.0.0.1", port: 26379), .tcp(host: "10.0.0.2", port: 26379)])))
        let overridden = try fixture.load(environment: ["PUSHLINE_REDIS_SENTINEL_MASTER_NAME": "other"])
        #expect(overridden.redis.topology == .sentinel(RedisSentinelConfiguration(
            masterName: "other", sentinels: [.tcp(host: "10.0.0.1", port: 26379), .tcp(host: "10.0.0.2", port: 26379)])))
    }

    @Test("mode: sentinel without a master name is an error at redis.sentinel.master_name; host is not read")
    func sentinelErrors() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker
                                               + "\nredis:\n  mode: sentinel\n  host: 10.0.0.5\n  sentinel:\n    addresses: [10.0.0.1:26379]\n")
        #expect(fixture.errors().map(\.key).sorted() == ["redis.host", "redis.sentinel.master_name"])
    }

    @Test("the nodes or sentinel keys without their mode are errors")
    func keysWithoutMode() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  nodes: [10.0.0.1:7000]\n")
        #expect(fixture.errors().map(\.key) == ["redis.nodes"])
    }

    @Test("tls: true verifies by default, with a CA file and a client certificate when given; tls_ keys need tls: true")
    func tls() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker
                                               + "\nredis:\n  tls: true\n  tls_ca_file: ca.pem\n  tls_cert_file: client.pem\n")
        try fixture.write("CA", to: "ca.pem")
        try fixture.write("CERT", to: "client.pem")
        let tls = try #require(try fixture.load().redis.tls)
        #expect(tls == RedisTLSConfiguration(certificateAuthorityFile: "\(fixture.directory)/ca.pem",
                                             certificateFile: "\(fixture.directory)/client.pem"))
        #expect(try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  tls: true\n").load().redis.tls
                == RedisTLSConfiguration())
        #expect(try ConfigurationFixture().load(environment: ["PUSHLINE_REDIS_TLS": "true"]).redis.tls?.insecureSkipVerify == false)
        let withoutTLS = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  tls_insecure_skip_verify: true\n")
        #expect(withoutTLS.errors().map(\.key) == ["redis.tls_insecure_skip_verify"])
    }
}
