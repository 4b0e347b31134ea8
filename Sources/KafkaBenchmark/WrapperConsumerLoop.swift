import Kafka
import Runtime

/// The consume workload through ``KafkaConsumer``: `poll` batches, `complete` each (watermarks and
/// offset stores), until every message has arrived.
enum WrapperConsumerLoop {
    /// Returns the seconds from the first batch to the last and how many messages that span covers.
    static func run(topic: String, count: Int, group: String, batchSize: Int,
                    properties: [String: String]) throws -> (seconds: Double, messages: Int) {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: properties["bootstrap.servers"]!, groupID: group, topics: [topic])
        configuration.additionalProperties = properties
        let consumer = try KafkaConsumer(configuration: configuration)
        let clock = MonotonicClock.system
        var start: MonotonicClock.Instant?
        var firstBatch = 0
        var received = 0
        var progress = ProgressDeadline(what: "the wrapper to consume \(count) messages")
        while received < count {
            try progress.check(received)
            let batch = consumer.poll(maxMessages: batchSize, timeout: .milliseconds(100))
            guard !batch.isEmpty else { continue }
            consumer.complete(batch)
            received += batch.count
            if start == nil {
                start = clock.now
                firstBatch = batch.count
            }
        }
        let seconds = (clock.now - start!).inSeconds
        try consumer.close()
        return (seconds, count - firstBatch)
    }
}
