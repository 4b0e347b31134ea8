import APNsCore

/// One APNs request ready to send: the device, its headers and the payload bytes, with how the
/// text's locale was chosen.
public struct Delivery: Sendable, Equatable {
    public let token: DeviceToken
    public let environment: Intent.Environment
    /// `apns-id`, derived from (intent id, device token) so a retry carries the same id.
    public let notificationID: NotificationID
    public let topic: String
    public let pushType: PushType
    public let priority: APNsPriority
    public let expiration: APNsExpiration
    public let collapseID: String?
    public let payload: [UInt8]
    /// Nil unless the text was rendered by Pushline from a catalog.
    public let locale: LocaleResolution?
    /// Whether alert text was shortened to fit the payload limit.
    public let wasShortened: Bool
    /// Set while the payload waits for the recipient's key: ``PayloadSealer`` seals it.
    public var sealing: SealingRequest? = nil
    /// What the delivery policies read of it (docs/policies.md).
    public var policy = DeliveryPolicyTraits()

    /// This delivery with another payload and nothing left to seal.
    func replacingPayload(_ payload: [UInt8]) -> Delivery {
        Delivery(token: token, environment: environment, notificationID: notificationID, topic: topic, pushType: pushType,
                 priority: priority, expiration: expiration, collapseID: collapseID, payload: payload, locale: locale,
                 wasShortened: wasShortened, policy: policy)
    }

    /// This delivery with the headers a delivery policy changed: `apns-priority` (a Live Activity
    /// update over its budget) and `apns-expiration` (a time to live).
    public func replacingHeaders(priority: APNsPriority, expiration: APNsExpiration) -> Delivery {
        Delivery(token: token, environment: environment, notificationID: notificationID, topic: topic, pushType: pushType,
                 priority: priority, expiration: expiration, collapseID: collapseID, payload: payload, locale: locale,
                 wasShortened: wasShortened, sealing: sealing, policy: policy)
    }
}

extension Delivery {
    /// The delivery of `composed` to one device. The composition is taken: when the caller's is its
    /// last use (an intent's one device, the usual case) its fields move into the delivery; an
    /// intent's other devices copy the composition kept for their locale.
    init(_ composed: consuming NotificationComposer.Composed, token: DeviceToken, environment: Intent.Environment,
         notificationID: NotificationID, expiration: APNsExpiration, policy: DeliveryPolicyTraits) {
        self.init(token: token, environment: environment, notificationID: notificationID, topic: composed.topic,
                  pushType: composed.pushType, priority: composed.priority, expiration: expiration,
                  collapseID: composed.collapseID, payload: composed.payload, locale: composed.locale,
                  wasShortened: composed.wasShortened, sealing: composed.sealing, policy: policy)
    }
}
