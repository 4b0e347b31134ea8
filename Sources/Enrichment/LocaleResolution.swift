/// Which locale a server-rendered notification was written in, where the request came from, and
/// whether BCP 47 fallback was needed (`zh-Hant-TW` asked, `zh-hant` used).
public struct LocaleResolution: Sendable, Equatable, CustomStringConvertible {
    /// Where the requested locale came from.
    public enum Source: String, Sendable {
        case intent
        case profile
        case appDefault = "app-default"
    }

    /// The tag asked for; nil when neither the intent nor the profile named one.
    public let requested: String?
    public let source: Source
    /// The catalog locale used, normalized (lower case, `-`).
    public let resolved: String

    /// A resolution made before, as it was (a release's delivery read back, ``Delivery/init(reading:)``).
    init(requested: String?, source: Source, resolved: String) {
        self.requested = requested
        self.source = source
        self.resolved = resolved
    }

    /// Whether the text is in another locale than the one asked for.
    public var isFallback: Bool {
        requested.map { LanguageTag.normalized($0) != resolved } ?? false
    }

    /// The locale asked for (or the app's default) in the catalog: the first of its fallback chain
    /// the catalog has, else the app's default.
    init(requested: String?, source: Source, available: Set<String>, defaultLocale: String) {
        self.requested = requested
        self.source = requested == nil ? .appDefault : source
        resolved = requested.flatMap { tag in
            let exact = LanguageTag.normalized(tag)
            return available.contains(exact) ? exact : LanguageTag.fallbackChain(tag).first(where: available.contains)
        } ?? defaultLocale
    }

    /// `ja (intent)`, or `zh-Hant-TW (profile) → zh-hant` when it fell back.
    public var description: String {
        let asked = "\(requested ?? resolved) (\(source.rawValue))"
        return isFallback ? "\(asked) → \(resolved)" : asked
    }
}
