/// The Live Activity keys of `aps` (spec §4.6). The device decodes `contentState` into the app's
/// `ContentState` and `attributes` into the type named by `attributesType`.
public struct LiveActivityContent: Sendable, Equatable {
    /// When the update was sent, UNIX seconds; the device shows the newest.
    public var timestamp: Int64
    public var event: LiveActivityEvent
    public var contentState: JSONObject?
    /// UNIX seconds after which the activity shows as stale.
    public var staleDate: Int64?
    /// UNIX seconds at which an ended activity leaves the Lock Screen.
    public var dismissalDate: Int64?
    /// `start` only: the name of the app's `ActivityAttributes` type.
    public var attributesType: String?
    /// `start` only: the static attributes.
    public var attributes: JSONObject?
    /// `start` only (iOS 18+): ask the device for an update token.
    public var inputPushToken: Bool
    /// `start` only (iOS 18+): subscribe the activity to this broadcast channel id.
    public var inputPushChannel: String?

    public init(timestamp: Int64, event: LiveActivityEvent, contentState: JSONObject? = nil,
                staleDate: Int64? = nil, dismissalDate: Int64? = nil, attributesType: String? = nil,
                attributes: JSONObject? = nil, inputPushToken: Bool = false, inputPushChannel: String? = nil) {
        self.timestamp = timestamp
        self.event = event
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.attributesType = attributesType
        self.attributes = attributes
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
    }
}
