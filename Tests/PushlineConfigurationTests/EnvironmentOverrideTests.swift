import APNsClient
import PushlineConfiguration
import PushlineTestKit
import Redis
import Testing

@Suite("PUSHLINE_ environment variables override the files")
struct EnvironmentOverrideTests {
    @Test("a variable replaces the file's value")
    func replacesFileValue() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  port: 6380\n")
        let configuration = try fixture.load(environment: ["PUSHLINE_REDIS_PORT": "6390"])
        #expect(configuration.redis.endpoint == .tcp(host: "127.0.0.1", port: 6390))
    }

    @Test("a variable sets a value the file leaves at its default")
    func setsAbsentValue() throws {
        let configuration = try ConfigurationFixture().load(environment: ["PUSHLINE_TELEMETRY_LOG_LEVEL": "debug"])
        #expect(configuration.telemetry.logLevel == .debug)
    }

    @Test("telemetry.bind: every IPv4 address by default, an address from the file, overridden by PUSHLINE_TELEMETRY_BIND")
    func telemetryBind() throws {
        #expect(try ConfigurationFixture().load().telemetry.bind == "0.0.0.0")
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\ntelemetry:\n  bind: 127.0.0.1\n")
        #expect(try fixture.load().telemetry.bind == "127.0.0.1")
        #expect(try fixture.load(environment: ["PUSHLINE_TELEMETRY_BIND": "::"]).telemetry.bind == "::")
    }

    @Test("a list is comma-separated")
    func list() throws {
        let configuration = try ConfigurationFixture().load(environment: ["PUSHLINE_KAFKA_BOOTSTRAP_SERVERS": "k1:9092, k2:9093"])
        #expect(configuration.kafka.bootstrapServers == [HostAndPort(host: "k1", port: 9092), HostAndPort(host: "k2", port: 9093)])
    }

    @Test("a sequence item is addressed by its index")
    func sequenceItem() throws {
        let configuration = try ConfigurationFixture().load(environment: ["PUSHLINE_APNS_POOLS_0_MAX_CONNECTIONS": "12"])
        #expect(configuration.apns.pools.first?.maximumConnections == 12)
    }

    @Test("a pipeline's settings are addressed by its name")
    func pipelineSetting() throws {
        let configuration = try ConfigurationFixture().load(environment: [
            "PUSHLINE_PIPELINES_MAIN_BATCH_SIZE": "1000", "PUSHLINE_PIPELINES_MAIN_REDIS_UNREACHABLE": "fail_open",
        ])
        let pipeline = try #require(configuration.pipelines.first)
        #expect(pipeline.name == "main")
        #expect(pipeline.batchSize == 1000)
        #expect(pipeline.redisUnreachable == .failOpen)
    }

    @Test("a pipeline's max_intent_bytes: 256 KiB by default, from the file, overridden by its variable")
    func maximumIntentBytes() throws {
        #expect(try ConfigurationFixture().load().pipelines.first?.maximumIntentBytes == 262_144)
        let fixture = try ConfigurationFixture(pipelines: ["main.yaml": ConfigurationFixture.validPipeline + "\nmax_intent_bytes: 65536\n"])
        #expect(try fixture.load().pipelines.first?.maximumIntentBytes == 65_536)
        let overridden = try fixture.load(environment: ["PUSHLINE_PIPELINES_MAIN_MAX_INTENT_BYTES": "1048576"])
        #expect(overridden.pipelines.first?.maximumIntentBytes == 1_048_576)
    }

    @Test("a librdkafka property is spelled with _ for .")
    func kafkaProperty() throws {
        let configuration = try ConfigurationFixture().load(environment: ["PUSHLINE_KAFKA_PROPERTIES_SOCKET_TIMEOUT_MS": "5000"])
        #expect(configuration.kafka.properties == ["socket.timeout.ms": "5000"])
    }

    @Test("a variable of the wrong type names the variable, the key and the line of the file's value")
    func wrongType() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  port: 6380\n")
        let error = try #require(fixture.errors(environment: ["PUSHLINE_REDIS_PORT": "sixty"]).only)
        #expect(error.code == .wrongType)
        #expect(error.variable == "PUSHLINE_REDIS_PORT")
        #expect(error.key == "redis.port")
        #expect(error.line == 12)
        #expect(error.description
            == #"\#(fixture.file):12: redis.port: must be an integer from 1 to 65535, got "sixty" (from PUSHLINE_REDIS_PORT)"#)
    }

    @Test("a variable out of range is reported like the file's value")
    func outOfRange() throws {
        let error = try #require(try ConfigurationFixture().errors(environment: ["PUSHLINE_SHUTDOWN_DEADLINE": "1h"]).only)
        #expect(error.code == .outOfRange)
        #expect(error.key == "shutdown.deadline")
        #expect(error.variable == "PUSHLINE_SHUTDOWN_DEADLINE")
    }

    @Test("a variable that names no setting is an error; other PUSHLINE_ variables are left alone")
    func unknownVariable() throws {
        let errors = try ConfigurationFixture().errors(environment: [
            "PUSHLINE_REDIS_PROT": "6379", "PUSHLINE_APNS_POOLS_1_MAX_CONNECTIONS": "2", "PUSHLINE_FUZZ": "1",
        ])
        #expect(errors.map(\.key) == ["PUSHLINE_APNS_POOLS_1_MAX_CONNECTIONS", "PUSHLINE_REDIS_PROT"])
        #expect(errors.allSatisfy { $0.code == .unknownVariable && $0.file == "environment" && $0.line == nil })
    }

    @Test("a pipeline inherits the worker's dedupe settings and overrides single ones")
    func dedupeDefaults() throws {
        let worker = ConfigurationFixture.validWorker + "\ndedupe:\n  sent_ttl: 2d\n"
        let pipeline = ConfigurationFixture.validPipeline + "\ndedupe:\n  collapse_window: 10m\n"
        let configuration = try ConfigurationFixture(worker: worker, pipelines: ["main.yaml": pipeline])
            .load(environment: ["PUSHLINE_PIPELINES_MAIN_DEDUPE_PENDING_TTL": "45s"])
        let dedupe = try #require(configuration.pipelines.first?.dedupe)
        #expect(dedupe.sentTTL == .seconds(2 * 86_400))
        #expect(dedupe.collapseWindow == .seconds(600))
        #expect(dedupe.pendingTTL == .seconds(45))
        #expect(configuration.dedupe.collapseWindow == .seconds(3_600))
    }
}
