import Kafka
import Testing

@Suite("Kafka configuration")
struct KafkaConfigurationTests {
    static let secrets = ["sasl.password": "hunter2", "ssl.key.password": "k3y-pass", "sasl.oauthbearer.client.secret": "0auth-s3cret"]

    @Test("descriptions show every property but never a secret's value")
    func descriptionsRedactSecrets() {
        var consumer = KafkaConsumerConfiguration(bootstrapServers: "localhost:9092", groupID: "g", topics: ["t"])
        consumer.additionalProperties = Self.secrets
        var producer = KafkaProducerConfiguration(bootstrapServers: "localhost:9092")
        producer.additionalProperties = Self.secrets
        for description in [consumer.description, producer.description] {
            #expect(description.contains("sasl.password=[redacted]"))
            #expect(description.contains("bootstrap.servers=localhost:9092"))
            for secret in Self.secrets.values { #expect(!description.contains(secret)) }
        }
    }

    @Test("an error that quotes a refused value never shows a secret's value")
    func errorsRedactSecrets() {
        var configuration = KafkaProducerConfiguration(bootstrapServers: "localhost:9092")
        configuration.additionalProperties = Self.secrets.merging(["enable.idempotence": "hunter2"]) { $1 }
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) { _ in } }
        #expect(error?.code == .invalidArgument)
        #expect(error?.description.contains("enable.idempotence") == true)
        #expect(error?.description.contains("hunter2") == false)
    }

    @Test("an unknown property is refused by name")
    func unknownProperty() {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: "localhost:9092", groupID: "g", topics: ["t"])
        configuration.additionalProperties = ["no.such.property": "1"]
        let error = #expect(throws: KafkaError.self) { try KafkaConsumer(configuration: configuration) }
        #expect(error?.description.contains("no.such.property") == true)
    }

    @Test("enable.auto.offset.store cannot be turned back on: offsets are stored only at watermarks")
    func autoOffsetStoreRefused() {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: "localhost:9092", groupID: "g", topics: ["t"])
        configuration.additionalProperties = ["enable.auto.offset.store": "true"]
        let error = #expect(throws: KafkaError.self) { try KafkaConsumer(configuration: configuration) }
        #expect(error?.description.contains("enable.auto.offset.store") == true)
    }

    @Test("typed fields reach librdkafka under their property names, and the passthrough wins over them")
    func typedFieldsAndPassthrough() {
        var producer = KafkaProducerConfiguration(bootstrapServers: "b:1")
        producer.linger = .milliseconds(20)
        producer.compression = .zstd
        #expect(producer.description.contains("linger.ms=20"))
        #expect(producer.description.contains("compression.codec=zstd"))
        #expect(producer.description.contains("enable.idempotence=true"))
        producer.additionalProperties = ["linger.ms": "50"]
        #expect(producer.description.contains("linger.ms=50"))

        var consumer = KafkaConsumerConfiguration(bootstrapServers: "b:1", groupID: "g", topics: ["t"])
        consumer.groupInstanceID = "worker-1"
        #expect(consumer.description.contains("partition.assignment.strategy=cooperative-sticky"))
        #expect(consumer.description.contains("enable.auto.offset.store=false"))
        #expect(consumer.description.contains("group.instance.id=worker-1"))
    }
}
