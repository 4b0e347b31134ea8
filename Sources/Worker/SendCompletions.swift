import APNsClient
import Runtime

/// Starts the worker's sends on Swift's cooperative pool and hands their answers back to the
/// worker's thread through an ``Inbox``.
final class SendCompletions: Sendable {
    /// One finished ``APNsSender/send(_:pool:)``: the worker's id for it and its results.
    struct Completion: Sendable {
        let send: Int
        let results: Result<[DeliveryResult], any Error>
    }

    private let finished: Inbox<Completion>

    init(wakeUp: Semaphore) {
        finished = Inbox(wakeUp: wakeUp)
    }

    /// Sends `notifications` through `pool` without waiting; the results arrive through ``take()``.
    func start(_ send: Int, _ notifications: [APNsNotification], pool: String, sender: APNsSender) {
        Task.detached { [self] in
            let results: Result<[DeliveryResult], any Error>
            do {
                results = .success(try await sender.send(notifications, pool: pool))
            } catch {
                results = .failure(error)
            }
            finished.append(contentsOf: [Completion(send: send, results: results)])
        }
    }

    /// Every send that finished since the last call.
    func take() -> [Completion] {
        finished.take()
    }
}
