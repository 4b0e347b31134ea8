import APNsClient
import PushlineConfiguration
import PushlineTestKit
import Redis
import Testing

@Suite("The example configuration")
struct ExampleConfigurationTests {
    @Test("Config/pushline.yaml and Pipelines/ load as documented")
    func examplesLoad() throws {
        let configuration = try PushlineConfiguration.load(file: RepositoryPaths.file("Config/pushline.yaml"), environment: [:])
        #expect(configuration.kafka.bootstrapServers == [HostAndPort(host: "localhost", port: 9092)])
        #expect(configuration.redis.endpoint == .tcp(host: "127.0.0.1", port: 6379))
        #expect(configuration.apns.pools.map(\.environment) == [APNsEnvironment(host: "127.0.0.1", port: 2197)])
        guard case .token(let credentials)? = configuration.apns.credentials["dev"] else {
            Issue.record("expected the dev key")
            return
        }
        #expect(credentials.teamID == DevCredentials.teamID)
        let pipeline = try #require(configuration.pipelines.only)
        #expect(pipeline.name == "notifications")
        #expect(pipeline.file == RepositoryPaths.file("Pipelines/notifications.yaml"))
        #expect(pipeline.templatesDirectory == RepositoryPaths.file("Config/templates"))
        #expect(pipeline.apnsPool == "default")
        #expect(pipeline.dedupe.collapseWindow == .seconds(600))
    }

    @Test("without any setting, the defaults hold")
    func defaults() throws {
        let configuration = try ConfigurationFixture().load()
        #expect(configuration.kafka.groupID == "pushline")
        #expect(configuration.telemetry.metricsPort == 9464)
        #expect(configuration.shutdown.deadline == .seconds(30))
        let pipeline = try #require(configuration.pipelines.only)
        #expect(pipeline.sourceTopic == "pushline.intents")
        #expect(pipeline.sourceGroup == "pushline")
        #expect(pipeline.outputs == PipelineConfiguration.Outputs())
        #expect(pipeline.redisUnreachable == .pause)
        #expect(pipeline.batchLinger == .milliseconds(1))
        #expect(configuration.apns.pools.first?.senderConfiguration.maximumConnections == SenderConfiguration().maximumConnections)
    }

    @Test("the producer of outcomes lingers 1 ms unless a librdkafka property says otherwise")
    func producerLinger() throws {
        #expect(try ConfigurationFixture().load().kafka.producerConfiguration.description.contains("linger.ms=1 "))
        let configured = try ConfigurationFixture().load(environment: ["PUSHLINE_KAFKA_PROPERTIES_LINGER_MS": "20"])
        #expect(configured.kafka.producerConfiguration.description.contains("linger.ms=20"))
    }
}
