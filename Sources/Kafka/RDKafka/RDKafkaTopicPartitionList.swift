internal import CRdKafka

/// Owns one `rd_kafka_topic_partition_list_t`, built from Swift values for a single C call.
final class RDKafkaTopicPartitionList {
    private let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    init(_ partitions: some Collection<KafkaTopicPartition>) {
        pointer = rd_kafka_topic_partition_list_new(Int32(partitions.count))
        for partition in partitions {
            rd_kafka_topic_partition_list_add(pointer, partition.topic, partition.partition)
        }
    }

    /// A list whose entries carry offsets (to store, commit, or read back committed offsets).
    convenience init(offsets: [KafkaTopicPartition: Int64]) {
        self.init(offsets.keys)
        for index in 0..<Int(pointer.pointee.cnt) {
            let element = pointer.pointee.elems[index]
            pointer.pointee.elems[index].offset = offsets[Self.topicPartition(element)]!
        }
    }

    deinit {
        rd_kafka_topic_partition_list_destroy(pointer)
    }

    /// Lends the list to C for the duration of `body`; the list is not destroyed before `body` returns.
    func withPointer<Result>(_ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> Result) -> Result {
        withExtendedLifetime(self) { body(pointer) }
    }

    /// The entries of a list that librdkafka owns (as in a rebalance callback), with their offsets.
    static func entries(of list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [(KafkaTopicPartition, Int64, rd_kafka_resp_err_t)] {
        guard let list else { return [] }
        return (0..<Int(list.pointee.cnt)).map { index in
            let element = list.pointee.elems[index]
            return (topicPartition(element), element.offset, element.err)
        }
    }

    /// This list's entries.
    var entries: [(KafkaTopicPartition, Int64, rd_kafka_resp_err_t)] {
        Self.entries(of: pointer)
    }

    private static func topicPartition(_ element: rd_kafka_topic_partition_t) -> KafkaTopicPartition {
        KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)
    }
}
