/// A delivery the deferred store keeps until its release time (quiet hours, the background budget's
/// coalesced release, docs/policies.md): its
/// id (the delivery's derived `apns-id`, which names one intent and device), when it may go, and
/// what the worker needs to send and record it then, as bytes the store does not read.
public struct DeferredEntry: Sendable, Equatable {
    /// The delivery's id, unique per intent and device: a second entry with the same id replaces the first.
    public var id: String
    /// When the delivery may be released, Unix milliseconds.
    public var releaseAt: Int64
    /// The rendered request and what recording needs, opaque to the store (binary-safe).
    public var body: [UInt8]
    /// Set for an entry that coalesces (a background push over its device's budget: the device's
    /// token): the store keeps one entry per coalescing key, the newest kept; an older one it
    /// replaces is marked replaced and made due at once (``DeferredEntryStore/replaced(_:)``).
    /// Not read back by a take.
    public var coalescing: String?
    /// Set on an entry a take returned: when the lease it took ends (Unix ms). Completing it removes
    /// it only while it is still under that lease (``DeferredEntryStore/complete(_:)``): not kept
    /// again, nor replaced under its coalescing key, since.
    public var leasedUntil: Int64?

    public init(id: String, releaseAt: Int64, body: [UInt8], coalescing: String? = nil, leasedUntil: Int64? = nil) {
        self.id = id
        self.releaseAt = releaseAt
        self.body = body
        self.coalescing = coalescing
        self.leasedUntil = leasedUntil
    }
}
