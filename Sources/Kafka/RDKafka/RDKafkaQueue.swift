internal import CRdKafka

/// Owns one reference to a client's main event queue (`rd_kafka_queue_get_main`), and keeps the
/// client alive until the reference is released.
final class RDKafkaQueue: @unchecked Sendable {  // librdkafka queues are thread-safe; `pointer` never changes
    let pointer: OpaquePointer
    private let client: RDKafkaClient

    init(mainQueueOf client: RDKafkaClient) {
        self.client = client
        pointer = rd_kafka_queue_get_main(client.handle)
    }

    deinit {
        rd_kafka_queue_destroy(pointer)
    }
}
