internal import CRdKafka

/// One message handed to the application by ``KafkaConsumer/poll(maxMessages:timeout:first:)``. Its bytes
/// are copied out of librdkafka, so it outlives the poll. Pass it back to
/// ``KafkaConsumer/complete(_:)`` once its work is fully recorded.
///
/// A class (immutable, so sendable): a message travels with every delivery planned from it and with
/// the worker's bookkeeping until it completes, and copying its fields at each step showed up in profiles.
public final class KafkaConsumerMessage: Sendable {
    public let topicPartition: KafkaTopicPartition
    public let offset: Int64
    /// The key, or `nil` when the message has none.
    public let key: [UInt8]?
    /// The value, or `nil` for a tombstone (a deletion in a compacted topic).
    public let value: [UInt8]?
    /// The message's timestamp (its creation or log-append time, as the topic says), Unix
    /// milliseconds; `nil` when the message has none.
    public let timestamp: Int64?

    public init(topicPartition: KafkaTopicPartition, offset: Int64, key: [UInt8]?, value: [UInt8]?, timestamp: Int64? = nil) {
        self.topicPartition = topicPartition
        self.offset = offset
        self.key = key
        self.value = value
        self.timestamp = timestamp
    }

    /// Copies a message that librdkafka owns; `topic` is its topic's name, looked up by the caller.
    /// The pointer must be librdkafka's own: its timestamp lives in the message around it.
    convenience init(copying pointer: UnsafeMutablePointer<rd_kafka_message_t>, topic: String) {
        let message = pointer.pointee
        let timestamp = rd_kafka_message_timestamp(pointer, nil)
        self.init(
            topicPartition: KafkaTopicPartition(topic: topic, partition: message.partition),
            offset: message.offset,
            key: message.key.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: message.key_len)) },
            value: message.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: message.len)) },
            timestamp: timestamp >= 0 ? timestamp : nil  // -1: no timestamp
        )
    }
}
