import FoundationEssentials

/// The part of librdkafka's statistics JSON (`statistics.interval.ms`) that gives per-partition lag.
/// Decoded off the hot path: librdkafka emits it once per interval.
struct ConsumerStatistics: Decodable {
    struct Topic: Decodable {
        let partitions: [String: Partition]
    }

    struct Partition: Decodable {
        let partition: Int32
        let hi_offset: Int64
        let consumer_lag: Int64
        let consumer_lag_stored: Int64?
    }

    let topics: [String: Topic]

    /// The lag of each real partition (librdkafka also reports an internal partition -1); librdkafka
    /// writes -1 for a lag it does not know.
    static func lag(fromJSON json: UnsafeRawBufferPointer) -> [KafkaTopicPartition: KafkaPartitionLag] {
        guard let statistics = try? JSONDecoder().decode(ConsumerStatistics.self, from: Data(json)) else { return [:] }
        var lag: [KafkaTopicPartition: KafkaPartitionLag] = [:]
        for (name, topic) in statistics.topics {
            for partition in topic.partitions.values where partition.partition >= 0 {
                lag[KafkaTopicPartition(topic: name, partition: partition.partition)] = KafkaPartitionLag(
                    highWatermark: partition.hi_offset,
                    committed: partition.consumer_lag >= 0 ? partition.consumer_lag : nil,
                    stored: partition.consumer_lag_stored.flatMap { $0 >= 0 ? $0 : nil }
                )
            }
        }
        return lag
    }
}
