/// A notification as it would go on the wire, before any check: the path's device token, the
/// headers that carry rules, and the payload bytes. ``NotificationValidator`` checks it. `let`s with
/// no initial values, so the initializer does not end by copying the whole request (docs/BENCHMARKS.md).
public struct NotificationRequest: Sendable, Equatable {
    /// Where the request goes; broadcast pushes have their own size limit and no device token.
    public enum Destination: Sendable, Equatable {
        /// `/3/device/<token>`. A nil token means "not known yet" (validating a payload on its own).
        case device(token: String?)
        /// `/4/broadcasts/apps/<bundle id>`.
        case broadcast
    }

    public let destination: Destination
    public let pushType: PushType
    /// `apns-topic`; nil when not known yet (validating a payload on its own).
    public let topic: String?
    /// `apns-priority`; nil means the push type's default.
    public let priority: APNsPriority?
    /// `apns-collapse-id`, as given.
    public let collapseID: String?
    /// The body, exactly the bytes that would be sent.
    public let payload: [UInt8]

    public init(destination: Destination = .device(token: nil), pushType: PushType, topic: String? = nil,
                priority: APNsPriority? = nil, collapseID: String? = nil, payload: [UInt8]) {
        self.destination = destination
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.collapseID = collapseID
        self.payload = payload
    }

    /// The priority APNs will apply.
    public var effectivePriority: APNsPriority { priority ?? pushType.defaultPriority }

    /// The largest payload APNs accepts for this request: 5120 for VoIP and broadcast, else 4096.
    public var payloadLimit: Int {
        destination == .broadcast ? PushType.largePayloadLimit : pushType.payloadLimit
    }
}
