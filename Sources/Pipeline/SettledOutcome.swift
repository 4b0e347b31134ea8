/// What a settled idempotency claim keeps of its delivery's outcome: where the deciding intent was
/// read and the fields of the ``OutcomeEvent`` that planning the same message again cannot rebuild
/// (APNs' answer and when the outcome was decided). With them, a redelivery of the same message
/// re-emits exactly the outcome that was decided when Kafka may not have it (docs/worker.md).
public struct SettledOutcome: Sendable, Equatable {
    /// Where the message that decided the delivery was read.
    public var source: SourcePosition
    public var status: OutcomeEvent.Status
    public var reason: String?
    public var apnsUniqueID: String?
    public var apnsStatus: Int?
    public var apnsTimestamp: Int64?
    public var attempts: Int
    public var completedAt: Int64
    public var latencyMilliseconds: Double?
    /// When a `deferred` delivery is to be released, Unix milliseconds.
    public var releaseAt: Int64?

    public init(source: SourcePosition, status: OutcomeEvent.Status, completedAt: Int64, reason: String? = nil,
                apnsUniqueID: String? = nil, apnsStatus: Int? = nil, apnsTimestamp: Int64? = nil, attempts: Int = 0,
                latencyMilliseconds: Double? = nil, releaseAt: Int64? = nil) {
        self.source = source
        self.status = status
        self.completedAt = completedAt
        self.reason = reason
        self.apnsUniqueID = apnsUniqueID
        self.apnsStatus = apnsStatus
        self.apnsTimestamp = apnsTimestamp
        self.attempts = attempts
        self.latencyMilliseconds = latencyMilliseconds
        self.releaseAt = releaseAt
    }

    /// The fields of `event` a claim keeps.
    public init(_ event: OutcomeEvent) {
        self.init(source: event.source, status: event.status, completedAt: event.completedAt, reason: event.reason,
                  apnsUniqueID: event.apnsUniqueID, apnsStatus: event.apnsStatus, apnsTimestamp: event.apnsTimestamp,
                  attempts: event.attempts, latencyMilliseconds: event.latencyMilliseconds, releaseAt: event.releaseAt)
    }

    /// Puts the kept fields back into `event`, an outcome built again from the same message: the
    /// result is the event that was decided, byte for byte when planning gives the same delivery.
    public func restore(into event: inout OutcomeEvent) {
        event.source = source
        event.status = status
        event.completedAt = completedAt
        event.reason = reason
        event.apnsUniqueID = apnsUniqueID
        event.apnsStatus = apnsStatus
        event.apnsTimestamp = apnsTimestamp
        event.attempts = attempts
        event.latencyMilliseconds = latencyMilliseconds
        event.releaseAt = releaseAt
    }
}
