import Pipeline

/// What makes one delivery, for counting it once: the intent id, the device token, and the intent
/// message's source position. Copies of an outcome that a redelivery produced again
/// (docs/worker.md) share all three; another message with the same intent id (a duplicate intent)
/// has another source position, so it is another delivery (its outcome is `suppressed`).
public struct DeliveryIdentity: Hashable, Sendable {
    public let intentID: String
    /// Nil for an outcome of an intent that never got as far as a device (`invalid`).
    public let token: String?
    public let source: SourcePosition

    public init(intentID: String, token: String?, source: SourcePosition) {
        self.intentID = intentID
        self.token = token
        self.source = source
    }
}
