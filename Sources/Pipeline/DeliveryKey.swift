import APNsCore

/// One delivery: an intent to one device. The unit of idempotency and of outcome events.
///
/// Held as the delivery's derived `apns-id` (``NotificationID/derived(intentID:deviceToken:)``, a
/// name-based UUID of the intent id and the token): sixteen bytes in two words, so a key goes
/// through sets and into Redis commands several times on its way (claim, record) without a string
/// made, hashed or compared each time, and its claim key in Redis has a fixed, short length
/// whatever the token's and the intent id's.
public struct DeliveryKey: Hashable, Sendable {
    /// The delivery's `apns-id`, which names the (intent, device) pair alone.
    let notificationID: NotificationID

    public init(intentID: String, deviceToken: DeviceToken) {
        notificationID = NotificationID.derived(intentID: intentID, deviceToken: deviceToken)
    }

    /// The key of the delivery whose derived `apns-id` is `notificationID` (a `Delivery`'s, made by
    /// the enricher with ``NotificationID/derived(intentID:deviceToken:)``): the same key as
    /// ``init(intentID:deviceToken:)`` without deriving the id a second time.
    public init(derivedID notificationID: NotificationID) {
        self.notificationID = notificationID
    }

    /// The claim's key in Redis, `pushline:claim:<apns-id>` (51 bytes), as docs/pipeline-stores.md
    /// documents it.
    public var claimKey: String {
        var bytes: [UInt8] = []
        appendClaimKey(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``claimKey``'s bytes to `bytes`, written in place (one per command on the claim and
    /// record paths).
    func appendClaimKey(to bytes: inout [UInt8]) {
        let prefix = Self.claimKeyPrefix
        bytes.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        notificationID.withUTF8Description { bytes.append(contentsOf: $0) }
    }

    /// How many bytes ``claimKey`` has: the prefix and the 8-4-4-4-12 id.
    static var claimKeyLength: Int { claimKeyPrefix.utf8CodeUnitCount + 36 }

    private static var claimKeyPrefix: StaticString { "pushline:claim:" }
}
