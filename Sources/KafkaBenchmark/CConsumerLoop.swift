internal import CRdKafka
import Runtime

/// The consume baseline: `rd_kafka_consumer_poll` in a loop, each value copied into a reused buffer,
/// and after every `batchSize` messages the next offset of each partition stored with
/// `rd_kafka_offsets_store` (the work the wrapper's batches and watermarks do).
enum CConsumerLoop {
    /// Consumes `count` messages of `topic` from the start as a new group; returns the seconds from
    /// the first message to the last and how many messages that span covers.
    static func run(topic: String, partitions: Int, count: Int, group: String, batchSize: Int,
                    properties: [String: String]) throws(KafkaBenchmarkError) -> (seconds: Double, messages: Int) {
        var settings = properties
        settings["group.id"] = group
        settings["enable.auto.offset.store"] = "false"
        let client = try CClient.make(RD_KAFKA_CONSUMER, settings)
        defer { rd_kafka_destroy(client) }
        rd_kafka_poll_set_consumer(client)
        let subscription = rd_kafka_topic_partition_list_new(1)
        rd_kafka_topic_partition_list_add(subscription, topic, -1)
        let subscribed = rd_kafka_subscribe(client, subscription)
        rd_kafka_topic_partition_list_destroy(subscription)
        guard subscribed == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaBenchmarkError("C baseline: subscribe: \(String(cString: rd_kafka_err2str(subscribed)))")
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var nextOffsets = [Int64](repeating: -1, count: partitions)
        var received = 0
        let clock = MonotonicClock.system
        var start: MonotonicClock.Instant?
        var progress = ProgressDeadline(what: "the C baseline to consume \(count) messages")
        while received < count {
            try progress.check(received)
            guard let message = rd_kafka_consumer_poll(client, 100) else { continue }
            if message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR, let payload = message.pointee.payload {
                buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: payload, byteCount: min(message.pointee.len, $0.count)) }
                nextOffsets[Int(message.pointee.partition)] = message.pointee.offset + 1
                received += 1
                if start == nil { start = clock.now }
                if received % batchSize == 0 || received == count { store(nextOffsets, of: topic, client) }
            }
            rd_kafka_message_destroy(message)
        }
        let seconds = (clock.now - start!).inSeconds
        _ = rd_kafka_consumer_close(client)
        return (seconds, count - 1)
    }

    private static func store(_ nextOffsets: [Int64], of topic: String, _ client: OpaquePointer) {
        let list = rd_kafka_topic_partition_list_new(Int32(nextOffsets.count))
        for (partition, offset) in nextOffsets.enumerated() where offset >= 0 {
            rd_kafka_topic_partition_list_add(list, topic, Int32(partition))!.pointee.offset = offset
        }
        _ = rd_kafka_offsets_store(client, list)
        rd_kafka_topic_partition_list_destroy(list)
    }
}
