import APNsCore

/// One delivery: an intent to one device. The unit of idempotency and of outcome events.
///
/// Held as its claim key, with the key's hash worked out once when it is made: a delivery's key
/// goes through sets and into Redis commands several times on its way (claim, record), and building
/// the key text and hashing the intent id and token each time showed up in profiles.
public struct DeliveryKey: Hashable, Sendable {
    /// `pushline:claim:<token>:<intent id>`: the token is fixed-format hex, so the key is
    /// unambiguous and names the delivery alone.
    let claimKey: String
    /// `claimKey`'s hash in this process.
    private let claimKeyHash: Int

    public init(intentID: String, deviceToken: DeviceToken) {
        claimKey = "pushline:claim:" + deviceToken.hex + ":" + intentID
        claimKeyHash = claimKey.hashValue
    }

    public static func == (lhs: DeliveryKey, rhs: DeliveryKey) -> Bool {
        lhs.claimKeyHash == rhs.claimKeyHash && lhs.claimKey == rhs.claimKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(claimKeyHash)
    }
}
