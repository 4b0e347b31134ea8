import APNsCore

/// One `send` call's requests inside a pool: their deliveries until each has its outcome, the
/// outcomes by index, and the task waiting for them, resumed once all are in.
///
/// Made on the caller's thread with its deliveries; from ``ConnectionPool/submit(_:)`` on, only the
/// pool's loop touches it.
final class DeliveryBatch: @unchecked Sendable {
    // Safe to share: the caller hands it to the pool's loop before any of it is used there, and the
    // loop alone changes it afterwards.
    /// Held until every outcome is in, for the pool's deadline sweep; then let go, so that the
    /// caller, which made the deliveries and keeps them until it resumes, also frees them.
    private(set) var deliveries: [PendingDelivery] = []
    /// The latest deadline of its deliveries: the cap after submission.
    let deadline: UInt64
    private var results: [RequestOutcome]
    private var remaining: Int
    private var continuation: CheckedContinuation<[RequestOutcome], Never>?

    /// Makes the deliveries of `count` requests, each made by `request` from its index, submitted
    /// at `now`, each with its deadline under `cap` (monotonic nanoseconds).
    init(count: Int, now: UInt64, cap: UInt64, request: (Int) -> (APNsRequest, APNsExpiration)) {
        deadline = now + cap
        results = Array(repeating: Self.unset, count: count)
        remaining = count
        deliveries = (0..<count).map { index in
            let (request, expiration) = request(index)
            return PendingDelivery(request: request, submittedAt: now,
                                   deadline: APNsSender.deadline(expiration: expiration, now: now, cap: cap),
                                   batch: self, index: index)
        }
    }

    /// True once every delivery has its outcome.
    var isComplete: Bool { remaining == 0 }

    /// Waits for every outcome, in request order; `submit` hands the batch to the pool.
    func outcomes(submit: @escaping @Sendable (DeliveryBatch) -> Void) async -> [RequestOutcome] {
        let deliveries = self.deliveries
        let outcomes = await withCheckedContinuation { (continuation: CheckedContinuation<[RequestOutcome], Never>) in
            self.continuation = continuation
            submit(self)
        }
        // The last reference, most of the time: the deliveries are freed on the thread that made them.
        withExtendedLifetime(deliveries) {}
        return outcomes
    }

    /// Records the outcome of the delivery at `index` (each delivery sets it once).
    func set(_ index: Int, _ result: RequestOutcome) {
        results[index] = result
        remaining -= 1
        guard remaining == 0 else { return }
        deliveries = []
        let finished = results
        results = []
        continuation?.resume(returning: finished)
    }

    /// What a place holds until its outcome is set.
    private static let unset = RequestOutcome(outcome: .failed, response: nil, body: APNsResponseBody([]), attempts: 0,
                                              latencyMilliseconds: 0, detail: nil)
}
