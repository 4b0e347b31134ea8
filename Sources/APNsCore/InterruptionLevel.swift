/// `aps.interruption-level`: how much a notification may interrupt the user.
public struct InterruptionLevel: APNsVocabulary {
    public let rawValue: String

    private init(uncheckedValue: String) {
        self.rawValue = uncheckedValue
    }

    public static let passive = InterruptionLevel(uncheckedValue: "passive")
    public static let active = InterruptionLevel(uncheckedValue: "active")
    public static let timeSensitive = InterruptionLevel(uncheckedValue: "time-sensitive")
    /// Needs Apple's critical-alerts entitlement.
    public static let critical = InterruptionLevel(uncheckedValue: "critical")

    public static let all: [InterruptionLevel] = [.passive, .active, .timeSensitive, .critical]
}
