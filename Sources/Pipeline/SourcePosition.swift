import APNsCore

/// Where an intent was read: its Kafka topic, partition and offset.
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// `topic[partition]@offset`, as librdkafka's logs write a partition.
    public var description: String { "\(topic)[\(partition)]@\(offset)" }

    /// The topic and partition of this position.
    var topicPartition: SourcePartition { SourcePartition(topic: topic, partition: partition) }

    /// Writes the position as the object field `key`: `{"topic":…,"partition":…,"offset":…}`.
    func write(_ key: StaticString, to writer: inout JSONFieldWriter) {
        writer.object(key) { fields in
            fields.string("topic", topic)
            fields.integer("partition", Int64(partition))
            fields.integer("offset", offset)
        }
    }
}

extension JSONObject {
    /// Appends `key` only when `value` is present: optional fields are left out, not `null`.
    public mutating func append(_ key: String, _ value: JSONValue?) {
        if let value { members.append(Member(key, value)) }
    }

    /// The object as one JSON document in bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.appendValue(.object(self), to: &bytes)
        return bytes
    }
}
