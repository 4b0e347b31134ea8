import Kafka
import Runtime
import Synchronization

/// Collects the producer's delivery reports (on its event thread) and lets the token feed's thread
/// wait until every output of a batch is acknowledged.
final class OutputAcknowledgements: Sendable {
    private let reports = Mutex<[KafkaProducerMessageID: Result<Int64, KafkaError>]>([:])
    private let arrived = Semaphore()

    /// The producer's event handler.
    func record(_ event: KafkaProducerEvent) {
        guard case .deliveryReports(let batch) = event else { return }
        reports.withLock { reports in
            for report in batch { reports[report.id] = report.result }
        }
        arrived.signal()
    }

    /// Waits until every id has a report; throws the first failed one, or ``WorkerError`` when
    /// `timeout` passes first.
    func wait(for ids: [KafkaProducerMessageID], timeout: Duration) throws {
        let deadline = Deadline(after: timeout)
        var waiting = Set(ids)
        while true {
            let failure = reports.withLock { reports -> KafkaError? in
                var failure: KafkaError?
                for id in waiting {
                    guard let result = reports.removeValue(forKey: id) else { continue }
                    waiting.remove(id)
                    if case .failure(let error) = result, failure == nil { failure = error }
                }
                return failure
            }
            if let failure { throw failure }
            if waiting.isEmpty { return }
            guard !deadline.hasPassed else { throw WorkerError("\(waiting.count) outputs were not acknowledged by Kafka in time") }
            _ = arrived.wait(milliseconds: 100)
        }
    }
}
