import HTTP2

/// One request inside a pool, from submission to its outcome. Confined to the pool's loop.
final class PendingDelivery {
    let request: APNsRequest
    let submittedAt: UInt64
    /// Monotonic nanoseconds after which no attempt starts and the one in flight is cancelled.
    let deadline: UInt64
    /// Where its outcome goes: its batch, at its place there.
    private let batch: DeliveryBatch
    private let index: Int
    var attempts = 0
    var lastResponse: HTTP2Response?
    var lastBody = APNsResponseBody([])
    /// `ExpiredProviderToken` is retried once, with a fresh token on a fresh connection.
    var retriedExpiredToken = false
    var isFinished = false
    /// The connection and stream carrying the current attempt, if one is in flight.
    var inFlight: (connection: PooledConnection, streamID: Int32)?

    init(request: APNsRequest, submittedAt: UInt64, deadline: UInt64, batch: DeliveryBatch, index: Int) {
        self.request = request
        self.submittedAt = submittedAt
        self.deadline = deadline
        self.batch = batch
        self.index = index
    }

    /// Whether it yields to the requests above bulk (its batch is bulk).
    var isBulk: Bool { batch.isBulk }

    /// Whether its deadline is the sender's hold limit rather than its own expiration.
    var deadlineIsHoldLimit: Bool { deadline >= batch.deadline }

    /// Hands the outcome `finish` returned to the batch.
    func complete(_ outcome: RequestOutcome) {
        batch.set(index, outcome)
    }

    /// Ends it once and returns its outcome, for the pool to record and then pass to `complete`;
    /// later calls return nil (a deadline and a late answer may race).
    func finish(_ outcome: DeliveryResult.Outcome, now: UInt64, detail: String? = nil) -> RequestOutcome? {
        guard !isFinished else { return nil }
        isFinished = true
        let result = RequestOutcome(outcome: outcome, response: lastResponse, body: lastBody, attempts: attempts,
                                    latencyMilliseconds: Double(now - submittedAt) / 1_000_000, detail: detail)
        return result
    }
}
