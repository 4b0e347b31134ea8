/// What a settled idempotency claim keeps of its delivery's outcome: where the deciding intent was
/// read and the fields of the ``OutcomeEvent`` that planning the same message again cannot rebuild
/// (APNs' answer and when the outcome was decided). With them, a redelivery of the same message
/// re-emits exactly the outcome that was decided when Kafka may not have it (docs/worker.md).
public struct SettledOutcome: Sendable, Equatable {
    /// Where the message that decided the delivery was read.
    public let source: SourcePosition
    public let status: OutcomeEvent.Status
    public let reason: String?
    public let apnsUniqueID: String?
    public let apnsStatus: Int?
    public let apnsTimestamp: Int64?
    public let attempts: Int
    public let completedAt: Int64
    public let latencyMilliseconds: Double?
    /// When a `deferred` delivery is to be released, Unix milliseconds.
    public let releaseAt: Int64?

    /// `let`s with no initial values, so this initializer does not end by copying the whole outcome
    /// (as it does, in a struct this large, when it sets a property holding a reference which
    /// already had a value, a `var` optional's nil among them; docs/BENCHMARKS.md).
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
