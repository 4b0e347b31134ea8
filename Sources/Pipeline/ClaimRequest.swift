/// A delivery to claim, with where the intent message that carries it was read: a claim settled by
/// the same position is this message's own decision, one settled by another position another
/// message's (docs/pipeline-stores.md).
public struct ClaimRequest: Sendable {
    public var key: DeliveryKey
    public var source: SourcePosition
    /// A deferred delivery's release (quiet hours, docs/policies.md): its claim, settled with the
    /// `deferred` outcome by another message, is taken over as if free (settled so by this very
    /// message — a release deferred again, read again — it is this message's own decision, as for
    /// any redelivery); settled by another message in any other way
    /// (released already, or decided otherwise) it decides nothing more (``IdempotencyStore/ClaimResult/recorded``).
    public var releasing: Bool

    public init(_ key: DeliveryKey, source: SourcePosition, releasing: Bool = false) {
        self.key = key
        self.source = source
        self.releasing = releasing
    }
}
