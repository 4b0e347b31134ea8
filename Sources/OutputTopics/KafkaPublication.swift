import Kafka
import Runtime
import Synchronization

/// Publishes a set of messages and waits until Kafka has answered for each: the offsets they got, or
/// why not.
public enum KafkaPublication {
    /// Each message's result, in order: its offset, or Kafka's error.
    /// - Throws: ``KafkaError`` when the producer cannot be made or Kafka does not answer for every
    ///   message within `timeout`.
    public static func publish(_ messages: [KafkaProducerMessage], configuration: KafkaProducerConfiguration,
                               timeout: Duration = .seconds(60)) throws -> [Result<Int64, KafkaError>] {
        guard !messages.isEmpty else { return [] }
        let reports = Mutex<[KafkaProducerMessageID: Result<Int64, KafkaError>]>([:])
        let allReported = Semaphore()
        let producer = try KafkaProducer(configuration: configuration) { event in
            guard case .deliveryReports(let batch) = event else { return }
            let done = reports.withLock { reports in
                for report in batch { reports[report.id] = report.result }
                return reports.count == messages.count
            }
            if done { allReported.signal() }
        }
        let ids = try producer.send(messages)
        guard allReported.wait(milliseconds: timeout.wholeMilliseconds) else {
            throw KafkaError(code: .timedOut, reason: "Kafka answered for \(reports.withLock(\.count)) of \(messages.count) "
                + "messages within \(timeout)")
        }
        try producer.close()
        return reports.withLock { reports in ids.map { reports[$0]! } }
    }
}
