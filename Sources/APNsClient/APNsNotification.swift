import APNsCore
import HTTP2

/// One notification to one device, as the sender puts it on the wire.
///
/// The optional properties spell out `Optional<…>`: a `T?` property starts as nil before any
/// initializer runs, and in a struct this large an initializer that then sets one holding a
/// reference ends by copying the whole struct (a retain and a release per reference, once per
/// request here; docs/BENCHMARKS.md); `Optional<T>` starts with no value.
public struct APNsNotification: Sendable {
    public var deviceToken: DeviceToken
    public var pushType: PushType
    public var topic: String
    public var priority: Optional<APNsPriority>
    public var expiration: APNsExpiration
    public var collapseID: Optional<CollapseID>
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

    /// The APNs header fields of the notification at `notification`; `authorization` is added per
    /// connection. The id differs on every request, so it never takes a place in the connection's
    /// HPACK table. Each field is read where it lies (see ``request(at:)``).
    static func fields(at notification: UnsafePointer<APNsNotification>) -> HTTP2FieldBlock {
        // The fixed names and a 36-character id take 132 bytes; the topic and options add theirs.
        var fields = HTTP2FieldBlock(reservingCapacity: 256 + notification.pointee.topic.utf8.count)
        fields.append("apns-push-type", notification.pointee.pushType.rawValue)
        fields.append("apns-topic", notification.pointee.topic)
        notification.pointee.id.withUTF8Description { fields.append("apns-id", bytes: $0, indexing: .never) }
        // Without the field APNs assumes 10, which it calls an error for push types that must go at
        // 5 (background): a notification that chose none gets its push type's default then.
        let pushType = notification.pointee.pushType
        if let priority = notification.pointee.priority ?? (pushType.defaultPriority == .immediate ? nil : pushType.defaultPriority) {
            fields.append("apns-priority", priority.description)
        }
        if let expiration = notification.pointee.expiration.headerValue { fields.append("apns-expiration", expiration) }
        if let collapseID = notification.pointee.collapseID { fields.append("apns-collapse-id", collapseID.value) }
        return fields
    }
}
