import APNsCore

/// One `send` call's requests inside a pool: their deliveries until each has its outcome, and the
/// task that takes the outcomes as they come: those of one turn of the pool's loop are handed over
/// together, at the end of that turn, each with its request's index.
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
    /// Whether its requests are bulk: they yield to the others in the pool.
    let isBulk: Bool
    private var remaining: Int
    /// Outcomes set during this turn of the loop, not yet handed over. One append per answer, in
    /// an access that calls out to nothing, so the runtime's exclusivity check is left out
    /// (docs/BENCHMARKS.md, "Exclusivity checks").
    @exclusivity(unchecked) private var answered: [(index: Int, outcome: RequestOutcome)] = []
    private var answers: AsyncStream<[(index: Int, outcome: RequestOutcome)]>.Continuation?
    /// Runs the hand-over at the end of the loop's turn; set by the pool when the batch is submitted.
    var atTurnEnd: (@escaping () -> Void) -> Void = { $0() }

    /// Makes the deliveries of `count` requests, each made by `request` from its index, submitted
    /// at `now`, each with its deadline under `cap` (monotonic nanoseconds); `bulk` when they yield
    /// to the others.
    init(count: Int, now: UInt64, cap: UInt64, bulk: Bool, request: (Int) -> (APNsRequest, APNsExpiration)) {
        deadline = now + cap
        isBulk = bulk
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

    /// The outcomes as they will come, in chunks (one per turn of the pool's loop), until the last.
    /// Taken before the batch is submitted to the pool; the caller holds the deliveries until the
    /// stream ends.
    func outcomes() -> AsyncStream<[(index: Int, outcome: RequestOutcome)]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [(index: Int, outcome: RequestOutcome)].self)
        answers = continuation
        return stream
    }

    /// Lets go of the deliveries of a batch the pool never took (the sender had shut down): each
    /// holds the batch, so they would otherwise keep each other.
    func abandon() {
        deliveries = []
        answers?.finish()
        answers = nil
    }

    /// Records the outcome of the delivery at `index` (each delivery sets it once); the first of a
    /// turn arranges the hand-over at its end, the last of the batch hands over at once.
    func set(_ index: Int, _ result: RequestOutcome) {
        answered.append((index, result))
        remaining -= 1
        if remaining == 0 {
            deliveries = []
            handOver()
            answers?.finish()
            answers = nil
        } else if answered.count == 1 {
            atTurnEnd { [self] in handOver() }
        }
    }

    private func handOver() {
        guard !answered.isEmpty else { return }
        answers?.yield(answered)
        answered = []
    }
}
