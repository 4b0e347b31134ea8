internal import CRdKafka

/// Owns one `rd_kafka_topic_t`: a handle on a topic of a client, which librdkafka keeps the
/// topic's metadata for. It holds its client, so the topic is destroyed before the client is.
final class RDKafkaTopic: @unchecked Sendable {  // librdkafka topic handles are thread-safe; `handle` never changes
    let handle: OpaquePointer
    private let client: RDKafkaClient

    /// Nil when librdkafka refuses the name.
    init?(_ name: String, of client: RDKafkaClient) {
        guard let handle = rd_kafka_topic_new(client.handle, name, nil) else { return nil }
        self.handle = handle
        self.client = client
    }

    deinit {
        rd_kafka_topic_destroy(handle)
    }
}
