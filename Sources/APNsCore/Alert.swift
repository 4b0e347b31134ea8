/// `aps.alert`: a plain string shown as the body, or a dictionary (spec §4.3).
public enum Alert: Sendable, Equatable {
    case body(String)
    case content(AlertContent)
}

/// The dictionary form of `aps.alert`. Each `*LocKey` names a string in the app's bundle that the
/// device localizes, with `*LocArgs` substituted for its `%@` specifiers in order.
public struct AlertContent: Sendable, Equatable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var launchImage: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var subtitleLocKey: String?
    public var subtitleLocArgs: [String]?
    public var locKey: String?
    public var locArgs: [String]?

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, launchImage: String? = nil,
                titleLocKey: String? = nil, titleLocArgs: [String]? = nil,
                subtitleLocKey: String? = nil, subtitleLocArgs: [String]? = nil,
                locKey: String? = nil, locArgs: [String]? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.launchImage = launchImage
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.subtitleLocKey = subtitleLocKey
        self.subtitleLocArgs = subtitleLocArgs
        self.locKey = locKey
        self.locArgs = locArgs
    }
}

/// `aps.sound`: a sound file name (or `"default"`), or the dictionary of a critical alert.
public enum Sound: Sendable, Equatable {
    case named(String)
    /// A critical alert's sound: plays even when the device is muted. `volume` is 0…1.
    case critical(name: String, volume: Double)
}
