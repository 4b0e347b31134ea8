import APNsClient
import Pipeline

/// A delivery the sender answered, with the records built for it already (its outcome, and a dead
/// letter when its retries ran out); recording still settles its claim (with ``settled``, what the
/// claim keeps of the outcome) and adds token events.
///
/// An immutable class: a sent delivery moves through several arrays (the send's results, the Redis
/// stage's job and answer, an outage's split), and copying its fields — APNs' answer, the outcome
/// its claim keeps, its records — at each step showed up in profiles.
final class SentDelivery: Sendable {
    let planned: PlannedDelivery
    let result: DeliveryResult
    /// Its outcome record; nil once its records were produced and only its claim is left.
    let outcome: WorkerOutput?
    /// The dead letter of a delivery whose retries ran out (`RetriesExhausted`).
    let deadLetter: WorkerOutput?
    let settled: SettledOutcome
    /// Whether this worker holds the delivery's idempotency claim: it was sent as a claim job
    /// admitted it (false when sent `fail_open` without one).
    let holdsClaim: Bool
    /// Whether its records were produced already (`fail_open` while Redis was out) and only its
    /// claim is left to settle.
    let onlyClaimLeft: Bool

    /// Held apart rather than in an array of outputs: nearly every delivery has its outcome alone,
    /// and an array per delivery was one more allocation on its way.
    init(planned: PlannedDelivery, result: DeliveryResult, outcome: WorkerOutput?, deadLetter: WorkerOutput?, settled: SettledOutcome,
         holdsClaim: Bool, onlyClaimLeft: Bool = false) {
        self.planned = planned
        self.result = result
        self.outcome = outcome
        self.deadLetter = deadLetter
        self.settled = settled
        self.holdsClaim = holdsClaim
        self.onlyClaimLeft = onlyClaimLeft
    }

    /// Whether recording it touches Redis: settling a claim this worker holds, or removing a token
    /// from the registry.
    var needsRedis: Bool {
        holdsClaim || needsRegistry
    }

    /// Whether its token event removes the token from the registry (`unregistered`, `expired`):
    /// the event says whether it did, so it waits for Redis.
    var needsRegistry: Bool {
        !onlyClaimLeft && result.reason.flatMap(TokenEvent.kind(for:)).map { $0 != .suspect } ?? false
    }

    /// Appends its records, the dead letter (if any) before the outcome.
    func appendOutputs(to outputs: inout [WorkerOutput]) {
        if let deadLetter { outputs.append(deadLetter) }
        if let outcome { outputs.append(outcome) }
    }

    /// This delivery with its records taken out, once they were produced: only its claim is left.
    func claimLeft() -> SentDelivery {
        SentDelivery(planned: planned, result: result, outcome: nil, deadLetter: nil, settled: settled, holdsClaim: holdsClaim,
                     onlyClaimLeft: true)
    }
}
