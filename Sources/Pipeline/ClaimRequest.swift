/// A delivery to claim, with where the intent message that carries it was read: a claim settled by
/// the same position is this message's own decision, one settled by another position another
/// message's (docs/pipeline-stores.md).
public struct ClaimRequest: Sendable {
    public var key: DeliveryKey
    public var source: SourcePosition

    public init(_ key: DeliveryKey, source: SourcePosition) {
        self.key = key
        self.source = source
    }
}
