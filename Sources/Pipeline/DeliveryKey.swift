import APNsCore

/// One delivery: an intent to one device. The unit of idempotency and of outcome events.
public struct DeliveryKey: Hashable, Sendable {
    public let intentID: String
    public let deviceToken: DeviceToken

    public init(intentID: String, deviceToken: DeviceToken) {
        self.intentID = intentID
        self.deviceToken = deviceToken
    }

    /// `pushline:claim:<token>:<intent id>`: the token is fixed-format hex, so the key is unambiguous.
    var claimKey: String { "pushline:claim:" + deviceToken.hex + ":" + intentID }
}
