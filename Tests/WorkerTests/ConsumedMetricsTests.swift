import Kafka
import Telemetry
import Testing
@testable import Worker

/// `pushline_intents_consumed_total` and each partition's newest consumed timestamp, taken from a
/// poll's messages a run of one partition's messages at a time.
@Suite("Consumed messages: the metric and the newest timestamps")
struct ConsumedMetricsTests {
    @Test("every message counts under its topic, however its partitions' runs interleave; each partition's newest timestamp is its last message's")
    func countsAndNewest() throws {
        let registry = MetricsRegistry()
        let metrics = try WorkerMetrics(registry: registry, pipeline: "default")
        // (topic, partition, timestamp): partition 0 in two runs, a run of one, and a message with no timestamp last.
        let polled: [(String, Int32, Int64?)] = [
            ("intents", 0, 10), ("intents", 0, 11), ("intents", 1, 20), ("urgent", 0, 30), ("intents", 0, 12),
            ("intents", 1, 21), ("intents", 1, 22), ("urgent", 0, nil),
        ]
        let messages = polled.enumerated().map { index, message in
            KafkaConsumerMessage(topicPartition: KafkaTopicPartition(topic: message.0, partition: message.1), offset: Int64(index),
                                 key: nil, value: nil, timestamp: message.2)
        }
        var newest: [KafkaTopicPartition: Int64] = [KafkaTopicPartition(topic: "urgent", partition: 0): 5]

        metrics.consumed(messages, newest: &newest)

        func consumed(_ topic: String) throws -> Int64 {
            try registry.makeCounter(label: "pushline_intents_consumed_total", dimensions: [("pipeline", "default"), ("topic", topic)]).value
        }
        #expect(try consumed("intents") == 6)
        #expect(try consumed("urgent") == 2)
        #expect(newest == [
            KafkaTopicPartition(topic: "intents", partition: 0): 12,
            KafkaTopicPartition(topic: "intents", partition: 1): 22,
            KafkaTopicPartition(topic: "urgent", partition: 0): 30,
        ])
    }
}
