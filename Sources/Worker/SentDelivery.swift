import APNsClient
import Pipeline

/// A delivery the sender answered, with the records built for it already (its outcome, and a dead
/// letter when its retries ran out); recording still settles its claim (with ``settled``, what the
/// claim keeps of the outcome) and adds token events.
struct SentDelivery: Sendable {
    let planned: PlannedDelivery
    let result: DeliveryResult
    let outputs: [WorkerOutput]
    let settled: SettledOutcome

    /// Whether recording it touches Redis: settling a claim this worker holds, or removing a token
    /// from the registry (`unregistered`, `expired`).
    var needsRedis: Bool {
        planned.holdsClaim || result.reason.flatMap(TokenEvent.kind(for:)).map { $0 != .suspect } ?? false
    }
}
