/// `aps.event` of a Live Activity push.
public struct LiveActivityEvent: APNsVocabulary {
    public let rawValue: String

    private init(uncheckedValue: String) {
        self.rawValue = uncheckedValue
    }

    /// Starts an activity (iOS 17.2+); needs `attributes-type`, `attributes`, `content-state` and an alert.
    public static let start = LiveActivityEvent(uncheckedValue: "start")
    public static let update = LiveActivityEvent(uncheckedValue: "update")
    public static let end = LiveActivityEvent(uncheckedValue: "end")

    public static let all: [LiveActivityEvent] = [.start, .update, .end]
}
