import APNsCore

/// What happened to one notification, the truth an outcome event is built from.
public struct DeliveryResult: Sendable, Equatable {
    /// How it ended.
    public enum Outcome: String, Sendable, Equatable {
        /// APNs took it (200). Not "delivered": APNs never says that.
        case accepted
        /// APNs refused it with a reason that retrying will not change.
        case rejected
        /// It could not be handed over: retries ran out, the connection kept failing, or the sender
        /// shut down before it was (again).
        case failed
        /// Its deadline (expiration, or the configured cap) passed before APNs took it.
        case expired
        /// Its request may have reached APNs but no answer came (stream reset after it was written,
        /// connection lost with it open, request timeout), and the sender does not resend such
        /// requests (``SenderConfiguration/onUncertain`` `skip`), or it was in flight when the
        /// sender shut down.
        case uncertain
    }

    public var outcome: Outcome
    public var id: NotificationID
    public var deviceToken: DeviceToken
    /// The last HTTP status from APNs, if any answer came.
    public var status: Int?
    /// `apns-id` as APNs answered (APNs may answer in upper case; compare as UUIDs).
    public var apnsID: NotificationID?
    /// `apns-unique-id` (sandbox only).
    public var apnsUniqueID: String?
    public var reason: RejectionReason?
    /// The 410 `timestamp`, milliseconds since the epoch.
    public var timestamp: Int64?
    /// Requests sent for it, retries included.
    public var attempts: Int
    /// From submission to the final answer, in milliseconds.
    public var latencyMilliseconds: Double
    /// Why it failed when there is no APNs reason (connection errors, deadline).
    public var failureDetail: String?
}

extension DeliveryResult {
    /// The result of the notification at `notification` from how its request ended, reading only
    /// the id and token of the notification, where they lie (see ``APNsNotification/request(at:)``).
    init(notification: UnsafePointer<APNsNotification>, outcome: borrowing RequestOutcome) {
        self.init(
            outcome: outcome.outcome, id: notification.pointee.id, deviceToken: notification.pointee.deviceToken,
            status: outcome.response?.status,
            apnsID: outcome.response?.withHeaderValue("apns-id") { $0.flatMap(NotificationID.init(utf8:)) },
            apnsUniqueID: outcome.response?.header("apns-unique-id"),
            reason: outcome.outcome == .accepted ? nil : outcome.body.reason,
            timestamp: outcome.body.timestamp, attempts: outcome.attempts,
            latencyMilliseconds: outcome.latencyMilliseconds, failureDetail: outcome.detail)
    }
}
