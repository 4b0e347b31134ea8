import APNsCore

/// One notification inside a pool, from submission to its final result. Confined to the pool's loop.
final class PendingDelivery {
    let notification: APNsNotification
    let submittedAt: UInt64
    /// Monotonic nanoseconds after which no attempt starts and the one in flight is cancelled.
    let deadline: UInt64
    let complete: (DeliveryResult) -> Void
    var attempts = 0
    var lastStatus: Int?
    var lastReason: RejectionReason?
    /// `ExpiredProviderToken` is retried once, with a fresh token on a fresh connection.
    var retriedExpiredToken = false
    var isFinished = false

    init(notification: APNsNotification, submittedAt: UInt64, deadline: UInt64, complete: @escaping (DeliveryResult) -> Void) {
        self.notification = notification
        self.submittedAt = submittedAt
        self.deadline = deadline
        self.complete = complete
    }

    /// Ends it once; later calls are ignored (a deadline and a late answer may race).
    func finish(_ outcome: DeliveryResult.Outcome, now: UInt64, apnsID: NotificationID? = nil, apnsUniqueID: String? = nil,
                timestamp: Int64? = nil, detail: String? = nil) -> DeliveryResult? {
        guard !isFinished else { return nil }
        isFinished = true
        let result = DeliveryResult(
            outcome: outcome, id: notification.id, deviceToken: notification.deviceToken, status: lastStatus,
            apnsID: apnsID, apnsUniqueID: apnsUniqueID, reason: lastReason, timestamp: timestamp, attempts: attempts,
            latencyMilliseconds: Double(now - submittedAt) / 1_000_000, failureDetail: detail)
        complete(result)
        return result
    }
}
