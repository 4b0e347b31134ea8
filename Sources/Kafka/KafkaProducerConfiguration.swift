/// How a ``KafkaProducer`` writes and what librdkafka is told. Defaults live here.
///
/// Idempotence is on by default (`enable.idempotence=true`: acks from all in-sync replicas, no
/// duplicates or reordering from the producer's own retries).
public struct KafkaProducerConfiguration: Sendable, CustomStringConvertible {
    /// `compression.codec`.
    public struct Compression: Sendable, Hashable {
        let rawValue: String
        public static let none = Compression(rawValue: "none")
        public static let gzip = Compression(rawValue: "gzip")
        public static let snappy = Compression(rawValue: "snappy")
        public static let lz4 = Compression(rawValue: "lz4")
        public static let zstd = Compression(rawValue: "zstd")
    }

    /// `bootstrap.servers`: `host:port` pairs, comma-separated.
    public var bootstrapServers: String
    /// `client.id`, shown in broker logs.
    public var clientID = "pushline"
    /// `enable.idempotence`.
    public var idempotence = true
    /// `compression.codec`. lz4 by default: cheap on CPU, and outcome events are repetitive JSON.
    public var compression = Compression.lz4
    /// `linger.ms`: how long librdkafka waits to fill a batch before sending it.
    public var linger = Duration.milliseconds(5)
    /// `message.timeout.ms`: how long a message may wait for delivery (retries included) before its
    /// report says it failed.
    public var messageTimeout = Duration.seconds(300)
    /// How long ``KafkaProducer/send(_:)`` waits for room when librdkafka's queue is full, before the
    /// message gets a failed (retryable) delivery report instead.
    public var enqueueTimeout = Duration.seconds(30)
    /// `reconnect.backoff.max.ms`: the longest wait between two attempts to reach a broker that is
    /// down. 1 s, not librdkafka's 10: once a broker is back, messages flow again within about a second.
    public var reconnectBackoffMax = Duration.seconds(1)
    /// Any other librdkafka property (security, SASL, SSL, batch sizes…), applied last so it wins over
    /// the typed fields above.
    public var additionalProperties: [String: String] = [:]

    public init(bootstrapServers: String) {
        self.bootstrapServers = bootstrapServers
    }

    /// Every property as librdkafka sees it, secrets redacted.
    public var description: String { properties().description }

    func properties() -> RDKafkaProperties {
        var properties = RDKafkaProperties([
            "bootstrap.servers": bootstrapServers,
            "client.id": clientID,
            "enable.idempotence": String(idempotence),
            "compression.codec": compression.rawValue,
            "linger.ms": String(linger.wholeMilliseconds),
            "message.timeout.ms": String(messageTimeout.wholeMilliseconds),
            "reconnect.backoff.max.ms": String(reconnectBackoffMax.wholeMilliseconds),
        ])
        properties.merge(additionalProperties)
        return properties
    }
}
