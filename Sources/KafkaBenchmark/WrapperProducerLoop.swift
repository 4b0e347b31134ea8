import Kafka
import Synchronization
import Runtime

/// The produce workload through ``KafkaProducer``: `send` in batches, then `close`, which returns
/// once every delivery report has reached the handler.
enum WrapperProducerLoop {
    static func run(topic: String, count: Int, payload: [UInt8], batchSize: Int,
                    properties: [String: String]) throws -> Double {
        let delivered = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        var configuration = KafkaProducerConfiguration(bootstrapServers: properties["bootstrap.servers"]!)
        configuration.additionalProperties = properties
        let producer = try KafkaProducer(configuration: configuration) { event in
            guard case .deliveryReports(let reports) = event else { return }
            for report in reports {
                if case .success = report.result {
                    delivered.add(1, ordering: .relaxed)
                } else {
                    failed.add(1, ordering: .relaxed)
                }
            }
        }
        let batch = [KafkaProducerMessage](repeating: KafkaProducerMessage(topic: topic, value: payload), count: batchSize)
        let clock = MonotonicClock.system
        let start = clock.now
        var sent = 0
        while sent < count {
            let size = min(batchSize, count - sent)
            _ = try producer.send(size == batchSize ? batch : Array(batch.prefix(size)))
            sent += size
        }
        try producer.close(timeout: .seconds(120))
        let seconds = (clock.now - start).inSeconds
        guard delivered.load(ordering: .relaxed) == count else {
            throw KafkaBenchmarkError("wrapper: \(delivered.load(ordering: .relaxed)) of \(count) delivered, \(failed.load(ordering: .relaxed)) failed")
        }
        return seconds
    }
}
