import Kafka

/// The offsets of one topic that a ``RecordRange`` covers, fixed when the scan is made: from each
/// partition's start (the range's start offset, the first offset at its time, or the first retained
/// offset) to the end the partition had then (its high watermark), so records written while reading
/// are not read.
public struct TopicScan: Sendable {
    public let topic: String
    /// Offsets to read, by partition; empty ranges are left out.
    public let ranges: [KafkaTopicPartition: Range<Int64>]

    /// How many offsets the scan covers (records, but for gaps that compaction or transactions left).
    public var total: Int64 { ranges.values.reduce(0) { $0 + Int64($1.count) } }

    /// Looks up `topic`'s partitions and offsets.
    /// - Throws: ``KafkaError`` when the topic or a partition of the range does not exist, or a partition's
    ///   leader does not answer.
    public init(topic: String, range: RecordRange, reader: KafkaTopicReader) throws(KafkaError) {
        self.topic = topic
        let existing = try reader.partitions(of: topic)
        if let missing = range.partitions?.subtracting(existing).min() {
            throw KafkaError(code: .unknownPartition, reason: "\(topic) has partitions 0..<\(existing.count), not \(missing)",
                             topicPartition: KafkaTopicPartition(topic: topic, partition: missing), isRetryable: false)
        }
        let partitions = existing.filter { range.partitions?.contains($0) ?? true }.map { KafkaTopicPartition(topic: topic, partition: $0) }
        let byTime = try range.since.map { since throws(KafkaError) in
            try reader.offsets(at: since - RecordRange.timestampSlack, for: partitions)
        } ?? [:]
        var ranges: [KafkaTopicPartition: Range<Int64>] = [:]
        for partition in partitions {
            let retained = try reader.watermarks(of: partition)
            let start = max(retained.lowerBound, range.startOffset ?? 0, byTime[partition] ?? 0)
            let end = min(retained.upperBound, range.endOffset ?? .max)
            if start < end { ranges[partition] = start..<end }
        }
        self.ranges = ranges
    }

    /// Reads every record of the scan, partition by partition in offset order, handing each to
    /// `take`; after each batch, `progress` gets the offsets passed so far and ``total``.
    public func read(with reader: KafkaTopicReader, progress: (_ done: Int64, _ total: Int64) -> Void,
                     take: (KafkaConsumerMessage) throws -> Void) throws {
        let total = total
        var done: [KafkaTopicPartition: Int64] = [:]
        try reader.read(ranges) { batch in
            for message in batch {
                try take(message)
                let range = ranges[message.topicPartition]!
                done[message.topicPartition] = message.offset + 1 - range.lowerBound
            }
            progress(done.values.reduce(0, +), total)
        }
        progress(total, total)
    }
}
