import APNsCore
import HTTP2

/// One notification to one device, as the sender puts it on the wire.
public struct APNsNotification: Sendable {
    public var deviceToken: DeviceToken
    public var pushType: PushType
    public var topic: String
    public var priority: APNsPriority?
    public var expiration: APNsExpiration
    public var collapseID: CollapseID?
    /// `apns-id`; derive it with ``NotificationID/derived(intentID:deviceToken:)`` so retries and
    /// analytics share it.
    public var id: NotificationID
    public var payload: [UInt8]

    public init(deviceToken: DeviceToken, pushType: PushType, topic: String, priority: APNsPriority? = nil,
                expiration: APNsExpiration = .unspecified, collapseID: CollapseID? = nil,
                id: NotificationID = .random(), payload: [UInt8]) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.id = id
        self.payload = payload
    }

    /// The APNs headers; `authorization` is added per connection.
    func headers() -> [HTTP2Header] {
        var fields: [HTTP2Header] = []
        fields.reserveCapacity(8)
        fields.append(HTTP2Header("apns-push-type", pushType.rawValue))
        fields.append(HTTP2Header("apns-topic", topic))
        fields.append(HTTP2Header("apns-id", id.description))
        if let priority { fields.append(HTTP2Header("apns-priority", priority.description)) }
        if let expiration = expiration.headerValue { fields.append(HTTP2Header("apns-expiration", expiration)) }
        if let collapseID { fields.append(HTTP2Header("apns-collapse-id", collapseID.value)) }
        return fields
    }
}
