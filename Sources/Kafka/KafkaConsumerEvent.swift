/// What a ``KafkaConsumer`` tells its owner, on the thread that called
/// ``KafkaConsumer/poll(maxMessages:timeout:first:)`` (or ``KafkaConsumer/close(timeout:)``), while that call runs.
public enum KafkaConsumerEvent: Sendable {
    /// These partitions are now this consumer's; their messages follow.
    case assigned([KafkaTopicPartition])
    /// These partitions are being taken away in an orderly rebalance. When the handler returns, each
    /// one's watermark is committed and the partition is released; work on it that completes later is
    /// not recorded by this consumer (the next owner receives those messages again).
    case revoked([KafkaTopicPartition])
    /// These partitions were taken away without notice (the session expired); nothing is committed.
    case lost([KafkaTopicPartition])
    /// A client-level error: librdkafka keeps retrying transient ones by itself.
    case error(KafkaError)
}
