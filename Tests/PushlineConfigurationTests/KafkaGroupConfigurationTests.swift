import Kafka
import PushlineConfiguration
import Testing

@Suite("kafka: static membership, assignor and session timeout")
struct KafkaGroupConfigurationTests {
    @Test("by default: dynamic membership, cooperative-sticky, a 10 s session")
    func defaults() throws {
        let configuration = try ConfigurationFixture().load()
        let consumer = configuration.kafka.consumerConfiguration(for: try #require(configuration.pipelines.first))
        #expect(consumer.groupInstanceID == nil)
        #expect(consumer.description.contains("partition.assignment.strategy=cooperative-sticky"))
        #expect(consumer.description.contains("session.timeout.ms=10000"))
    }

    @Test("the file's keys reach the pipeline's consumer; one pipeline uses the instance id as it is")
    func fromTheFile() throws {
        let worker = ConfigurationFixture.validWorker + "\nkafka:\n  group_instance_id: pushline-0\n  assignor: range\n  session_timeout: 30s\n"
        let configuration = try ConfigurationFixture(worker: worker).load()
        let pipeline = try #require(configuration.pipelines.first)
        let consumer = configuration.kafka.consumerConfiguration(for: pipeline, pipelines: 1)
        #expect(consumer.groupInstanceID == "pushline-0")
        #expect(consumer.assignor == .range)
        #expect(consumer.sessionTimeout == .seconds(30))
    }

    @Test("with several pipelines each consumer's instance id names its pipeline")
    func severalPipelines() throws {
        let configuration = try ConfigurationFixture(pipelines: ["main.yaml": ConfigurationFixture.validPipeline,
                                                                 "bulk.yaml": ConfigurationFixture.validPipeline])
            .load(environment: ["PUSHLINE_KAFKA_GROUP_INSTANCE_ID": "pod-7"])
        let ids = configuration.pipelines.map {
            configuration.kafka.consumerConfiguration(for: $0, pipelines: configuration.pipelines.count).groupInstanceID
        }
        #expect(ids.sorted { ($0 ?? "") < ($1 ?? "") } == ["pod-7-bulk", "pod-7-main"])
    }

    @Test("an assignor librdkafka does not offer is refused with the words it accepts")
    func unknownAssignor() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nkafka:\n  assignor: sticky\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .wrongType)
        #expect(error.key == "kafka.assignor")
        #expect(error.description.contains("one of range, roundrobin, cooperative-sticky"))
    }
}
