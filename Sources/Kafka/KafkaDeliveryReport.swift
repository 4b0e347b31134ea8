internal import CRdKafka

/// The fate of one sent message: its offset once the brokers have it, or why it failed. Every
/// message accepted by ``KafkaProducer/send(_:)`` gets exactly one report.
public struct KafkaDeliveryReport: Sendable {
    public let id: KafkaProducerMessageID
    /// The topic, and the partition the message went to (-1 when it failed before one was chosen).
    public let topicPartition: KafkaTopicPartition
    /// The message's offset in its partition, or the failure.
    public let result: Result<Int64, KafkaError>

    public init(id: KafkaProducerMessageID, topicPartition: KafkaTopicPartition, result: Result<Int64, KafkaError>) {
        self.id = id
        self.topicPartition = topicPartition
        self.result = result
    }

    /// Reads a message inside a delivery-report event (the event owns it: not destroyed here).
    init(reportedBy message: rd_kafka_message_t, topic: String) {
        let place = KafkaTopicPartition(topic: topic, partition: message.partition)
        self.init(
            id: KafkaProducerMessageID(rawValue: UInt64(UInt(bitPattern: message._private))),
            topicPartition: place,
            result: message.err == RD_KAFKA_RESP_ERR_NO_ERROR
                ? .success(message.offset) : .failure(KafkaError(message.err, "delivery", topicPartition: place))
        )
    }
}
