/// `aps.alert`: a plain string shown as the body, or a dictionary (spec §4.3).
public enum Alert: Sendable, Equatable {
    case body(String)
    case content(AlertContent)
}

/// The dictionary form of `aps.alert`. Each `*LocKey` names a string in the app's bundle that the
/// device localizes, with `*LocArgs` substituted for its `%@` specifiers in order.
///
/// The properties spell out `Optional<…>`: a `String?` property starts as nil before any
/// initializer runs, and in a struct this large an initializer that then sets it ends by copying
/// the whole struct (a retain and a release per reference, once per delivery here;
/// docs/BENCHMARKS.md); `Optional<String>` starts with no value.
public struct AlertContent: Sendable, Equatable {
    public var title: Optional<String>
    public var subtitle: Optional<String>
    public var body: Optional<String>
    public var launchImage: Optional<String>
    public var titleLocKey: Optional<String>
    public var titleLocArgs: Optional<[String]>
    public var subtitleLocKey: Optional<String>
    public var subtitleLocArgs: Optional<[String]>
    public var locKey: Optional<String>
    public var locArgs: Optional<[String]>

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
