/// A message for ``KafkaProducer/send(_:)``. librdkafka copies its bytes, so they may be reused as
/// soon as `send` returns.
public struct KafkaProducerMessage: Sendable {
    public var topic: String
    /// The partition, or `nil` to let the partitioner choose from the key.
    public var partition: Int32?
    public var key: [UInt8]?
    /// The value, or `nil` for a tombstone.
    public var value: [UInt8]?

    public init(topic: String, partition: Int32? = nil, key: [UInt8]? = nil, value: [UInt8]?) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
    }
}
