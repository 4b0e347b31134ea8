import APNsClient
import Runtime

/// Starts the worker's sends on Swift's cooperative pool and hands their answers back to the
/// worker's thread through an ``Inbox``, with each delivery's records built there, off the
/// worker's thread.
final class SendCompletions: Sendable {
    /// One finished ``APNsSender/send(_:pool:)``: the worker's id for it and its deliveries.
    struct Completion: Sendable {
        let send: Int
        let delivered: Result<[SentDelivery], any Error>
    }

    private let finished: Inbox<Completion>
    private let records: OutputRecords

    init(records: OutputRecords, wakeUp: Semaphore) {
        self.records = records
        finished = Inbox(wakeUp: wakeUp)
    }

    /// Sends the deliveries' `notifications` through `pool` without waiting; the results arrive
    /// through ``take()``.
    func start(_ send: Int, _ deliveries: [PlannedDelivery], _ notifications: [APNsNotification], pool: String, sender: APNsSender) {
        Task.detached { [self] in
            let delivered: Result<[SentDelivery], any Error>
            do {
                let results = try await sender.send(notifications, pool: pool)
                // The send's results arrive together: their outcomes are decided at one moment.
                let now = OutputRecords.now()
                var originals = LastOriginal()
                delivered = .success(zip(deliveries, results).map { planned, result in
                    let records = records.sent(planned, result, completedAt: now, originals: &originals)
                    return SentDelivery(planned: planned, result: result, outputs: records.outputs, settled: records.settled)
                })
            } catch {
                delivered = .failure(error)
            }
            finished.append(contentsOf: [Completion(send: send, delivered: delivered)])
        }
    }

    /// Every send that finished since the last call.
    func take() -> [Completion] {
        finished.take()
    }
}
