/// The `apns-priority` header: 10, 5 or 1.
public struct APNsPriority: APNsVocabulary {
    public let rawValue: Int

    private init(uncheckedValue: Int) {
        self.rawValue = uncheckedValue
    }

    /// 10: send now. APNs' default when the header is absent.
    public static let immediate = APNsPriority(uncheckedValue: 10)
    /// 5: deliver with the device's power in mind; may be grouped and delivered in bursts.
    public static let powerConsiderate = APNsPriority(uncheckedValue: 5)
    /// 1: put power first and never wake the device.
    public static let lowPower = APNsPriority(uncheckedValue: 1)

    public static let all: [APNsPriority] = [.immediate, .powerConsiderate, .lowPower]
}
