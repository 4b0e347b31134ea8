/// A delivery to claim, with where the intent message that carries it was read: a claim settled by
/// the same position is this message's own decision, one settled by another position another
/// message's (docs/pipeline-stores.md).
public struct ClaimRequest: Sendable {
    public var key: DeliveryKey
    public var source: SourcePosition
    /// A deferred delivery's release (quiet hours or the background budget, docs/policies.md): its
    /// claim, settled with the `deferred` outcome, is taken over as if free (see
    /// ``deferrableAgain``); settled by another message in any other way (released already, or
    /// decided otherwise) it decides nothing more (``IdempotencyStore/ClaimResult/recorded``).
    public var releasing: Bool
    /// A release that the policy stage may defer again (a background push over its budget): read
    /// again, its claim may hold the deferral this very message decided, which is then its own
    /// decision, as for any redelivery, not a deferral to take over. Only such releases are checked
    /// for it: the check costs the release claim's script an argument per release.
    public var deferrableAgain: Bool

    public init(_ key: DeliveryKey, source: SourcePosition, releasing: Bool = false, deferrableAgain: Bool = false) {
        self.key = key
        self.source = source
        self.releasing = releasing
        self.deferrableAgain = deferrableAgain
    }
}
