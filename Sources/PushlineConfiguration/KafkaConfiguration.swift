import Kafka

/// How Pushline reaches Kafka: shared by every pipeline's consumer and the producer of outcomes,
/// token events and DLQ records.
public struct KafkaConfiguration: Sendable, CustomStringConvertible {
    /// `bootstrap.servers`.
    public var bootstrapServers = [HostAndPort(host: "localhost", port: 9092)]
    /// The consumer group of pipelines that name none.
    public var groupID = "pushline"
    /// `client.id`.
    public var clientID = "pushline"
    /// `group.instance.id` (static membership), e.g. the pod's name: a worker restarted with the same
    /// id inside ``sessionTimeout`` takes its partitions back at once, without a rebalance. Each
    /// pipeline's consumer uses it as it is when there is one pipeline, `<id>-<pipeline>` otherwise
    /// (an instance id must be unique within its group). Nil: dynamic membership.
    public var groupInstanceID: String?
    /// `partition.assignment.strategy`; nil keeps the consumer's default, `cooperative-sticky`.
    public var assignor: KafkaConsumerConfiguration.Assignor?
    /// `session.timeout.ms`; nil keeps the consumer's default, 10 s.
    public var sessionTimeout: Duration?
    /// librdkafka properties passed through unchanged (`security.protocol`, `socket.timeout.ms`, …).
    public var properties: [String: String] = [:]
    /// librdkafka properties that hold secrets (``KafkaProperty/isSecret(_:)``: `sasl.password`,
    /// `ssl.key.pem`, …), from the environment only.
    public var secretProperties: [String: Secret] = [:]

    public init() {}

    /// The consumer of one pipeline: its group and source topic, with every property.
    /// - Parameter pipelines: how many pipelines run in the process (see ``groupInstanceID``).
    public func consumerConfiguration(for pipeline: PipelineConfiguration, pipelines: Int = 1) -> KafkaConsumerConfiguration {
        var consumer = consumerConfiguration(topic: pipeline.sourceTopic, group: pipeline.sourceGroup)
        consumer.groupInstanceID = groupInstanceID.map { pipelines > 1 ? "\($0)-\(pipeline.name)" : $0 }
        return consumer
    }

    /// The consumer of the token feed: its group and topic, with every property.
    public func consumerConfiguration(for tokens: TokensConfiguration) -> KafkaConsumerConfiguration {
        consumerConfiguration(topic: tokens.topic, group: tokens.group)
    }

    private func consumerConfiguration(topic: String, group: String) -> KafkaConsumerConfiguration {
        var consumer = KafkaConsumerConfiguration(bootstrapServers: bootstrapServerList, groupID: group, topics: [topic])
        consumer.clientID = clientID
        consumer.assignor = assignor ?? consumer.assignor
        consumer.sessionTimeout = sessionTimeout ?? consumer.sessionTimeout
        consumer.additionalProperties = allProperties
        return consumer
    }

    /// The producer of outcomes, token events and DLQ records, with every property. It lingers 1 ms
    /// (librdkafka's default is 5) unless `properties` sets `linger.ms`: an outcome is the last step of
    /// a notification's end-to-end latency, and under load its batches fill well before that.
    public var producerConfiguration: KafkaProducerConfiguration {
        var producer = KafkaProducerConfiguration(bootstrapServers: bootstrapServerList)
        producer.clientID = clientID
        producer.linger = .milliseconds(1)
        producer.additionalProperties = allProperties
        return producer
    }

    /// A reader of chosen offset ranges outside any group (reports, exports, dead-letter replay),
    /// with every property.
    public var readerConfiguration: KafkaReaderConfiguration {
        var reader = KafkaReaderConfiguration(bootstrapServers: bootstrapServerList)
        reader.clientID = clientID
        reader.additionalProperties = allProperties
        return reader
    }

    private var bootstrapServerList: String { bootstrapServers.map(\.description).joined(separator: ",") }

    /// The passthrough properties with the secret ones revealed, for librdkafka only.
    private var allProperties: [String: String] {
        properties.merging(secretProperties.mapValues(\.value)) { _, secret in secret }
    }

    /// Servers, group and client id, and property names; never property values.
    public var description: String {
        let names = (Array(properties.keys) + Array(secretProperties.keys)).sorted()
        let extra = names.isEmpty ? "" : ", properties: \(names.joined(separator: ", "))"
        let instance = groupInstanceID.map { ", instance \($0)" } ?? ""
        return "\(bootstrapServers.map(\.description).joined(separator: ",")) (group \(groupID)\(instance), client \(clientID)\(extra))"
    }

    /// Reads the `kafka` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        if let servers = section.list("bootstrap_servers", .hostAndPort) { bootstrapServers = servers }
        if let group = section.value("group_id", .text) { groupID = group }
        if let client = section.value("client_id", .text) { clientID = client }
        groupInstanceID = section.value("group_instance_id", .name)
        assignor = section.value("assignor", ConfigurationValueType<KafkaConsumerConfiguration.Assignor>.choice())
        sessionTimeout = section.value("session_timeout", .duration(.seconds(1)...Duration.seconds(1800)))
        for entry in section.dictionary("properties") {
            let key = "properties.\(entry.name)"
            if entry.origin.variable != nil {
                if KafkaProperty.isSecret(entry.name) {
                    secretProperties[entry.name] = Secret(entry.value)
                } else {
                    properties[entry.name] = entry.value
                }
            } else if KafkaProperty.isSecret(entry.name) || ConfigurationSection.looksLikeKeyMaterial(entry.value) {
                let variable = "\(section.variableName("properties"))_\(ConfigurationSection.variableWord(entry.name))"
                section.report(.inlineSecret, key, at: entry.origin,
                               "secrets are not read from configuration files; set \(variable) instead")
            } else {
                properties[entry.name] = entry.value
            }
        }
        section.finish()
    }
}
