import APNsCore

/// One delivery: an intent to one device. The unit of idempotency and of outcome events.
///
/// Held as the delivery's derived `apns-id` (``NotificationID/derived(intentID:deviceToken:)``, a
/// name-based UUID of the intent id and the token): sixteen bytes in two words, so a key goes
/// through sets and into Redis commands several times on its way (claim, record) without a string
/// made, hashed or compared each time, and its claim key in Redis has a fixed, short length
/// whatever the token's and the intent id's.
///
/// A deferred delivery's release (docs/policies.md) is claimed under a key of its own,
/// ``release``: the delivery's claim keeps the `deferred` outcome its intent message decided, and
/// the release's claim starts free, so it is taken by the plain `SET … NX` of every claim. The
/// release's key names the delivery's claim key as its Redis Cluster hash tag, so the two lie in
/// one slot and a script may read both.
public struct DeliveryKey: Hashable, Sendable {
    /// The delivery's `apns-id`, which names the (intent, device) pair alone.
    let notificationID: NotificationID
    /// Whether this is the key of the delivery's release (``release``).
    let isRelease: Bool

    public init(intentID: String, deviceToken: DeviceToken) {
        notificationID = NotificationID.derived(intentID: intentID, deviceToken: deviceToken)
        isRelease = false
    }

    /// The key of the delivery whose derived `apns-id` is `notificationID` (a `Delivery`'s, made by
    /// the enricher with ``NotificationID/derived(intentID:deviceToken:)``): the same key as
    /// ``init(intentID:deviceToken:)`` without deriving the id a second time.
    public init(derivedID notificationID: NotificationID) {
        self.notificationID = notificationID
        isRelease = false
    }

    private init(notificationID: NotificationID, isRelease: Bool) {
        self.notificationID = notificationID
        self.isRelease = isRelease
    }

    /// The key of this delivery's release from the deferred store, claimed as
    /// `{pushline:claim:<apns-id>}:release`.
    public var release: DeliveryKey {
        DeliveryKey(notificationID: notificationID, isRelease: true)
    }

    /// The delivery's own key: this key, or the one whose ``release`` this is.
    var delivery: DeliveryKey {
        DeliveryKey(notificationID: notificationID, isRelease: false)
    }

    /// The claim's key in Redis, `pushline:claim:<apns-id>` (51 bytes), or
    /// `{pushline:claim:<apns-id>}:release` (61) for a ``release``, as docs/pipeline-stores.md
    /// documents them.
    public var claimKey: String {
        var bytes: [UInt8] = []
        appendClaimKey(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``claimKey``'s bytes to `bytes`, written in place (one per command on the claim and
    /// record paths).
    func appendClaimKey(to bytes: inout [UInt8]) {
        func append(_ text: StaticString) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        if isRelease { append("{") }
        append(Self.claimKeyPrefix)
        notificationID.withUTF8Description { bytes.append(contentsOf: $0) }
        if isRelease { append(Self.releaseSuffix) }
    }

    /// How many bytes ``claimKey`` has at most: a release's braces and suffix, the prefix and the
    /// 8-4-4-4-12 id.
    static var claimKeyLength: Int { 1 + claimKeyPrefix.utf8CodeUnitCount + 36 + releaseSuffix.utf8CodeUnitCount }

    private static var claimKeyPrefix: StaticString { "pushline:claim:" }
    private static var releaseSuffix: StaticString { "}:release" }
}
