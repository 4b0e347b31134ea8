import APNsClient
import Runtime

/// Starts the worker's sends on Swift's cooperative pool and hands their answers back to the
/// worker's thread through an ``Inbox`` as APNs gives them (a chunk per turn of the sender's loop,
/// not once per send), with each delivery's records built there, off the worker's thread: the
/// claims are settled per answer, so a crash leaves only what was at APNs uncertain.
final class SendCompletions: Sendable {
    /// Answers of one ``APNsSender/send(_:pool:answered:)``: the worker's id for it, the deliveries
    /// answered since its last completion, and whether the send is over.
    struct Completion: Sendable {
        let send: Int
        let delivered: Result<[SentDelivery], any Error>
        /// Every delivery of the send is answered (or the send failed as a whole).
        let isLast: Bool
    }

    private let finished: Inbox<Completion>
    private let records: OutputRecords
    private let tasks = DetachedTasks()

    init(records: OutputRecords, wakeUp: Semaphore) {
        self.records = records
        finished = Inbox(wakeUp: wakeUp)
    }

    /// Sends the deliveries' `notifications` through `pool` without waiting (`bulk`: yielding to
    /// the others there); the results arrive through ``take()``. `holdingClaims`: whether this
    /// worker holds the deliveries' claims (sent after a claim job admitted them, not `fail_open`),
    /// which their ``SentDelivery`` carries on.
    func start(_ send: Int, _ deliveries: [PlannedDelivery], _ notifications: [APNsNotification], pool: String, bulk: Bool,
               holdingClaims: Bool, sender: APNsSender) {
        tasks.start(priority: bulk ? nil : .high) { [self] in
            do {
                try await sender.send(notifications, pool: pool, bulk: bulk) { answered in
                    // A chunk's results arrive together: their outcomes are decided at one moment.
                    let now = records.now()
                    var originals = LastOriginal()
                    let delivered = answered.map { index, result in
                        let records = records.sent(deliveries[index], result, completedAt: now, originals: &originals)
                        return SentDelivery(planned: deliveries[index], result: result, outcome: records.outcome,
                                            deadLetter: records.deadLetter, settled: records.settled, holdsClaim: holdingClaims)
                    }
                    finished.append(contentsOf: [Completion(send: send, delivered: .success(delivered), isLast: false)])
                }
                finished.append(contentsOf: [Completion(send: send, delivered: .success([]), isLast: true)])
            } catch {
                finished.append(contentsOf: [Completion(send: send, delivered: .failure(error), isLast: true)])
            }
        }
    }

    /// Every send that finished since the last call.
    func take() -> [Completion] {
        finished.take()
    }

    /// Stops waiting for APNs: cancels the sends still waiting for answers (each ends as a failed
    /// completion, which nobody takes any more) and waits until every send's task has ended, so that
    /// none is still building records when the process exits. For the worker's stop, after the drain.
    func stop() {
        tasks.cancelAndWait()
    }
}
