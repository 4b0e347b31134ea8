internal import CRdKafka
import Runtime

/// Reads chosen offset ranges of partitions, outside any consumer group: for reports, exports and
/// replays that must leave the pipeline's offsets alone. It assigns the partitions itself (never
/// subscribes, so it joins no group) and commits nothing (``KafkaReaderConfiguration``).
///
/// Every method blocks (metadata and offset requests, fetching): call them from a thread of your
/// own, never from Swift's cooperative pool, and from one thread at a time.
public final class KafkaTopicReader: Sendable {
    private let client: RDKafkaClient
    private let configuration: KafkaReaderConfiguration

    public init(configuration: KafkaReaderConfiguration) throws(KafkaError) {
        self.configuration = configuration
        client = try RDKafkaClient(type: RD_KAFKA_CONSUMER, properties: try configuration.properties(),
                                   destroyFlags: RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)
        rd_kafka_poll_set_consumer(client.handle)
    }

    /// The partitions of `topic`, in order.
    /// - Throws: ``KafkaError/Code/unknownTopicOrPartition`` when the cluster has no such topic.
    public func partitions(of topic: String) throws(KafkaError) -> [Int32] {
        // Every topic's metadata, not the one topic's: asking for a topic by name may create it
        // (brokers with auto.create.topics.enable, the mock cluster), and a report must not.
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let result = rd_kafka_metadata(client.handle, 1, nil, &metadata, configuration.requestTimeout.timeoutMilliseconds)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else { throw KafkaError(result, "read the metadata of \(topic)") }
        defer { rd_kafka_metadata_destroy(metadata) }
        guard let found = metadata.pointee.topic(named: topic) else {
            throw KafkaError(code: .unknownTopicOrPartition, reason: "the cluster has no topic \(topic)", isRetryable: false)
        }
        guard found.err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(found.err, "read the metadata of \(topic)") }
        return (0..<Int(found.partition_cnt)).map { found.partitions[$0].id }.sorted()
    }

    /// The partition's first retained offset and its end (the offset the next message will get), as
    /// the partition's leader has them now.
    public func watermarks(of partition: KafkaTopicPartition) throws(KafkaError) -> Range<Int64> {
        var low: Int64 = -1
        var high: Int64 = -1
        let result = rd_kafka_query_watermark_offsets(client.handle, partition.topic, partition.partition, &low, &high,
                                                      configuration.requestTimeout.timeoutMilliseconds)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, "read watermarks", topicPartition: partition) }
        return low..<max(low, high)
    }

    /// For each partition, the offset of its first message whose timestamp is at or after `time` (Unix
    /// milliseconds); partitions where Kafka names none (no such message, or a broker that does not
    /// look up times) are absent.
    public func offsets(at time: Int64, for partitions: [KafkaTopicPartition]) throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let list = RDKafkaTopicPartitionList(offsets: Dictionary(uniqueKeysWithValues: partitions.map { ($0, time) }))
        let result = list.withPointer { rd_kafka_offsets_for_times(client.handle, $0, configuration.requestTimeout.timeoutMilliseconds) }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, "look up offsets for time \(time)") }
        var offsets: [KafkaTopicPartition: Int64] = [:]
        for (partition, offset, error) in list.entries where error == RD_KAFKA_RESP_ERR_NO_ERROR && offset >= 0 {
            offsets[partition] = offset
        }
        return offsets
    }

    /// Reads each partition's range of offsets, in offset order within a partition, handing messages
    /// to `take` in batches of at most `maxBatch`. Offsets without a message (removed by retention or
    /// compaction, transaction markers) are skipped; the read ends when every partition reached its
    /// range's end or its end of log.
    /// - Throws: ``KafkaError/Code/timedOut`` when a partition gives nothing for the configuration's
    ///   `stallTimeout`; a fetch error of a partition; whatever `take` throws.
    public func read(_ ranges: [KafkaTopicPartition: Range<Int64>], maxBatch: Int = 1000,
                     take: ([KafkaConsumerMessage]) throws -> Void) throws {
        var open = ranges.filter { !$0.value.isEmpty }
        guard !open.isEmpty else { return }
        try assign(open.mapValues(\.lowerBound))
        defer { _ = rd_kafka_assign(client.handle, nil) }
        var topicNames = TopicNames()
        var lastProgress = MonotonicClock.now
        var batch: [KafkaConsumerMessage] = []
        while !open.isEmpty {
            guard let message = rd_kafka_consumer_poll(client.handle, 100) else {
                if lastProgress.duration(to: .now) > configuration.stallTimeout {
                    let waiting = open.keys.map(\.description).sorted().joined(separator: ", ")
                    throw KafkaError(code: .timedOut, reason: "no message from \(waiting) for \(configuration.stallTimeout)")
                }
                continue
            }
            defer { rd_kafka_message_destroy(message) }  // consumed messages are ours to destroy
            let place = KafkaTopicPartition(topic: topicNames.name(of: message.pointee.rkt), partition: message.pointee.partition)
            guard let range = open[place] else { continue }
            lastProgress = .now
            switch message.pointee.err {
            case RD_KAFKA_RESP_ERR_NO_ERROR:
                let offset = message.pointee.offset
                if range.contains(offset) { batch.append(KafkaConsumerMessage(copying: message, topic: place.topic)) }
                if offset + 1 >= range.upperBound { open[place] = nil }
            case RD_KAFKA_RESP_ERR__PARTITION_EOF:
                // The end of the log: the message's offset is where the next message would go.
                open[place] = nil
            default:
                throw KafkaError(message.pointee.err, "fetch", topicPartition: place)
            }
            if batch.count >= maxBatch || (open.isEmpty && !batch.isEmpty) {
                try take(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The message at `offset` of `partition`.
    /// - Throws: ``KafkaError/Code/offsetOutOfRange`` when the partition no longer holds it (retention
    ///   or compaction removed it) or never did; other errors as ``read(_:maxBatch:take:)``.
    public func message(at offset: Int64, of partition: KafkaTopicPartition) throws -> KafkaConsumerMessage {
        let retained = try watermarks(of: partition)
        var found: KafkaConsumerMessage?
        if retained.contains(offset) {
            try read([partition: offset..<(offset + 1)]) { batch in found = batch.first }
        }
        guard let found else {
            throw KafkaError(code: .offsetOutOfRange, reason: "no message at offset \(offset): the partition holds offsets "
                + "\(retained.lowerBound)..<\(retained.upperBound)", topicPartition: partition, isRetryable: false)
        }
        return found
    }

    private func assign(_ starts: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        let list = RDKafkaTopicPartitionList(offsets: starts)
        let result = list.withPointer { rd_kafka_assign(client.handle, $0) }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, "assign \(starts.keys.map(\.description).sorted())") }
    }
}
