import Kafka

/// A record of an output topic that cannot be read as its schema says: where it is and what is wrong.
public struct OutputRecordError: Error, Sendable, CustomStringConvertible {
    /// Machine-readable: `UnreadableRecord` (not a JSON object of the schema), `UnknownSchemaVersion`.
    public let code: String
    public let topicPartition: KafkaTopicPartition
    public let offset: Int64
    public let detail: String

    public init(code: String, topicPartition: KafkaTopicPartition, offset: Int64, detail: String) {
        self.code = code
        self.topicPartition = topicPartition
        self.offset = offset
        self.detail = detail
    }

    public var description: String { "\(topicPartition) offset \(offset): \(code): \(detail)" }
}
