/// One partition of one topic: the unit of assignment, ordering and offsets.
public struct KafkaTopicPartition: Hashable, Sendable, CustomStringConvertible {
    public let topic: String
    public let partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    /// `topic[partition]`, as librdkafka's logs write it.
    public var description: String { "\(topic)[\(partition)]" }
}
