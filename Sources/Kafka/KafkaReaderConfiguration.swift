/// How a ``KafkaTopicReader`` reaches Kafka and what librdkafka is told. Defaults live here.
///
/// Fixed by the reader, because it must never act as a member of a consumer group: partitions are
/// assigned by the reader itself (never subscribed, so it joins no group) and nothing is committed
/// (`enable.auto.commit=false`), so reading a topic leaves every group's offsets as they were.
public struct KafkaReaderConfiguration: Sendable, CustomStringConvertible {
    /// `bootstrap.servers`: `host:port` pairs, comma-separated.
    public var bootstrapServers: String
    /// `client.id`, shown in broker logs.
    public var clientID = "pushline-reader"
    /// How long one metadata or offsets request (partitions, watermarks, offsets for times) may take.
    public var requestTimeout = Duration.seconds(10)
    /// How long a read waits for a partition's next message before it gives up.
    public var stallTimeout = Duration.seconds(30)
    /// `reconnect.backoff.max.ms`: the longest wait between two attempts to reach a broker that is
    /// down. 1 s, not librdkafka's 10, as for the consumer and the producer.
    public var reconnectBackoffMax = Duration.seconds(1)
    /// Any other librdkafka property (security, SASL, SSL, fetch sizes…), applied last so it wins over
    /// the typed fields above; `group.id`, `enable.auto.commit` and `enable.auto.offset.store` are refused.
    public var additionalProperties: [String: String] = [:]

    public init(bootstrapServers: String) {
        self.bootstrapServers = bootstrapServers
    }

    /// Every property as librdkafka sees it, secrets redacted.
    public var description: String {
        (try? properties().description) ?? "invalid: \(additionalProperties.keys.sorted())"
    }

    func properties() throws(KafkaError) -> RDKafkaProperties {
        for fixed in ["group.id", "enable.auto.commit", "enable.auto.offset.store"] where additionalProperties[fixed] != nil {
            throw KafkaError.configuration("\(fixed) cannot be set: a reader assigns partitions itself and commits nothing")
        }
        var properties = RDKafkaProperties([
            "bootstrap.servers": bootstrapServers,
            "client.id": clientID,
            // librdkafka's consumer poll needs a group id; a reader never subscribes, so never joins
            // it, and never commits to it.
            "group.id": "pushline-reader",
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            // The end of a partition is announced, so a read knows it is done even when the last
            // offsets below the high watermark hold no message (transaction markers, compaction).
            "enable.partition.eof": "true",
            "auto.offset.reset": "earliest",
            "reconnect.backoff.max.ms": String(reconnectBackoffMax.wholeMilliseconds),
        ])
        properties.merge(additionalProperties)
        return properties
    }
}
