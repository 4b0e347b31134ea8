import FoundationEssentials

/// The part of librdkafka's statistics JSON (`statistics.interval.ms`) that gives per-partition lag
/// and the brokers' connection states. Decoded off the hot path: librdkafka emits it once per interval.
struct ConsumerStatistics: Decodable {
    /// A broker as the client sees it: `state` is `UP` while connected; `nodeid` is -1 until
    /// metadata names it (a bootstrap address not yet matched); `source` is `logical` for the group
    /// coordinator's alias of a broker counted already.
    struct Broker: Decodable {
        let nodeid: Int32
        let state: String
        let source: String?
    }

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
    let brokers: [String: Broker]?

    static func decode(_ json: UnsafeRawBufferPointer) -> ConsumerStatistics? {
        try? JSONDecoder().decode(ConsumerStatistics.self, from: Data(json))
    }

    /// How many of the cluster's brokers the client is connected to; nil before metadata named any.
    var brokersUp: Int? {
        let known = (brokers ?? [:]).values.filter { $0.nodeid >= 0 && $0.source != "logical" }
        return known.isEmpty ? nil : known.count { $0.state == "UP" }
    }

    /// The lag of each real partition (librdkafka also reports an internal partition -1); librdkafka
    /// writes -1 for a lag it does not know.
    var lag: [KafkaTopicPartition: KafkaPartitionLag] {
        var lag: [KafkaTopicPartition: KafkaPartitionLag] = [:]
        for (name, topic) in topics {
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
