internal import CRdKafka

/// The fate of one sent message: its offset once the brokers have it, or why it failed. Every
/// message accepted by ``KafkaProducer/send(_:)`` gets exactly one report.
public struct KafkaDeliveryReport: Sendable {
    public let id: KafkaProducerMessageID
    /// The topic, and the partition the message went to (-1 when it failed before one was chosen).
    public let topicPartition: KafkaTopicPartition
    /// The message's offset in its partition, or the failure.
    public let result: Result<Int64, KafkaError>
    /// A failed message as it was sent (its partition the one it went to, nil when none was
    /// chosen), so that it can be sent again or replaced without its sender keeping every message
    /// until its report; nil for a delivered one.
    public let refusedMessage: KafkaProducerMessage?

    public init(id: KafkaProducerMessageID, topicPartition: KafkaTopicPartition, result: Result<Int64, KafkaError>,
                refusedMessage: KafkaProducerMessage? = nil) {
        self.id = id
        self.topicPartition = topicPartition
        self.result = result
        self.refusedMessage = refusedMessage
    }

    /// Reads a message inside a delivery-report event (the event owns it: not destroyed here); the
    /// bytes of a failed one are copied out, those of a delivered one are not touched.
    init(reportedBy message: rd_kafka_message_t, topic: String) {
        let place = KafkaTopicPartition(topic: topic, partition: message.partition)
        let delivered = message.err == RD_KAFKA_RESP_ERR_NO_ERROR
        self.init(
            id: KafkaProducerMessageID(rawValue: UInt64(UInt(bitPattern: message._private))),
            topicPartition: place,
            result: delivered ? .success(message.offset) : .failure(KafkaError(message.err, "delivery", topicPartition: place)),
            refusedMessage: delivered ? nil : KafkaProducerMessage(
                topic: topic, partition: message.partition >= 0 ? message.partition : nil,
                key: Self.bytes(message.key, message.key_len), value: Self.bytes(message.payload, message.len))
        )
    }

    private static func bytes(_ pointer: UnsafeMutableRawPointer?, _ count: Int) -> [UInt8]? {
        guard let pointer else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
