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
    /// librdkafka properties passed through unchanged (`security.protocol`, `socket.timeout.ms`, …).
    public var properties: [String: String] = [:]
    /// librdkafka properties that hold secrets (``KafkaProperty/isSecret(_:)``: `sasl.password`,
    /// `ssl.key.pem`, …), from the environment only.
    public var secretProperties: [String: Secret] = [:]

    public init() {}

    /// The consumer of one pipeline: its group and source topic, with every property.
    public func consumerConfiguration(for pipeline: PipelineConfiguration) -> KafkaConsumerConfiguration {
        consumerConfiguration(topic: pipeline.sourceTopic, group: pipeline.sourceGroup)
    }

    /// The consumer of the token feed: its group and topic, with every property.
    public func consumerConfiguration(for tokens: TokensConfiguration) -> KafkaConsumerConfiguration {
        consumerConfiguration(topic: tokens.topic, group: tokens.group)
    }

    private func consumerConfiguration(topic: String, group: String) -> KafkaConsumerConfiguration {
        var consumer = KafkaConsumerConfiguration(bootstrapServers: bootstrapServerList, groupID: group, topics: [topic])
        consumer.clientID = clientID
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

    private var bootstrapServerList: String { bootstrapServers.map(\.description).joined(separator: ",") }

    /// The passthrough properties with the secret ones revealed, for librdkafka only.
    private var allProperties: [String: String] {
        properties.merging(secretProperties.mapValues(\.value)) { _, secret in secret }
    }

    /// Servers, group and client id, and property names; never property values.
    public var description: String {
        let names = (Array(properties.keys) + Array(secretProperties.keys)).sorted()
        let extra = names.isEmpty ? "" : ", properties: \(names.joined(separator: ", "))"
        return "\(bootstrapServers.map(\.description).joined(separator: ",")) (group \(groupID), client \(clientID)\(extra))"
    }

    /// Reads the `kafka` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        if let servers = section.list("bootstrap_servers", .hostAndPort) { bootstrapServers = servers }
        if let group = section.value("group_id", .text) { groupID = group }
        if let client = section.value("client_id", .text) { clientID = client }
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
