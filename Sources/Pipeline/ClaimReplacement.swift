/// A claim that a dead owner left `pending`, to be replaced only while it still holds that owner's
/// value: taken over by this store's owner (sent again), or settled (not sent again).
public struct ClaimReplacement: Sendable, Equatable {
    /// What the claim becomes.
    public enum Replacement: Sendable, Equatable {
        /// This store's own `pending`, with a fresh pending TTL.
        case takeOver
        /// Settled with this outcome, for the redelivery horizon.
        case settle(SettledOutcome)
    }

    public let key: DeliveryKey
    /// The owner whose `pending` the claim must still hold.
    public let holder: String
    public let replacement: Replacement

    public init(_ key: DeliveryKey, holder: String, replacement: Replacement) {
        self.key = key
        self.holder = holder
        self.replacement = replacement
    }
}
