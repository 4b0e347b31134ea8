/// A claim to settle: its delivery, and the outcome that settles it (accepted → `sent`, anything
/// else → `failed`). A claim settled without an outcome (``outcome`` nil) only tells later claims
/// that the delivery was decided, not how.
public struct SettledClaim: Sendable, Equatable {
    /// The two settled states of a claim.
    public enum State: String, Sendable {
        /// APNs accepted the notification.
        case sent
        /// Rejected for good, expired, or dropped by a collapse window.
        case failed
    }

    public let key: DeliveryKey
    public let state: State
    public let outcome: SettledOutcome?

    /// Settles `key` with `outcome`: `sent` when it was accepted, `failed` otherwise. (`let`s with
    /// no initial values, so the initializers do not end by copying the whole claim;
    /// docs/BENCHMARKS.md, "Whole copies at the end of initialisers".)
    public init(_ key: DeliveryKey, outcome: SettledOutcome) {
        self.key = key
        state = outcome.status == .accepted ? .sent : .failed
        self.outcome = outcome
    }

    /// Settles `key` as `state` without keeping an outcome.
    public init(_ key: DeliveryKey, state: State) {
        self.key = key
        self.state = state
        outcome = nil
    }
}
