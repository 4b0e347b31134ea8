import Runtime

/// `quiet_hours:` of a pipeline's or a template's `policies:` (docs/policies.md, docs/configuration.md):
/// a daily window, in each user's time zone, during which deliveries are deferred to its end.
///
/// ```yaml
/// quiet_hours:
///   start: "22:00"
///   end: "08:00"
///   time_zone: Europe/Berlin          # for users without one in their profile; default UTC
///   exempt_categories: [security, call]   # or categories: [marketing], not both
///   release_interval: 1s              # how often each worker takes the deliveries due (default 1s)
/// ```
public struct QuietHoursConfiguration: Sendable, Equatable {
    /// Which intent categories the window holds back.
    public enum Coverage: Sendable, Equatable {
        /// Every delivery (neither key set).
        case all
        /// `categories:` — only these.
        case categories([String])
        /// `exempt_categories:` — all but these (an intent without a category included).
        case allExcept([String])
    }

    public var start: TimeOfDay
    public var end: TimeOfDay
    /// The zone of users whose profile names none, and of explicit-token intents (IANA; `UTC` by default).
    public var timeZone: String
    public var coverage: Coverage
    /// `release_interval`: how often each worker's releaser takes the deferred deliveries that are due.
    public var releaseInterval = defaultReleaseInterval
    /// `release_interval`'s default, also the releaser's interval without quiet hours (the background budget's releases).
    public static let defaultReleaseInterval = Duration.seconds(1)

    public init(start: TimeOfDay, end: TimeOfDay, timeZone: String = "UTC", coverage: Coverage = .all) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.coverage = coverage
    }

    /// `release_interval`'s bounds: from 10 ms to an hour.
    static let releaseIntervals = Duration.milliseconds(10)...Duration.seconds(3_600)

    /// Reads a `quiet_hours` section; nil (with every problem reported at its file, line and key)
    /// when it is not a complete window.
    static func read(_ section: inout ConfigurationSection) -> QuietHoursConfiguration? {
        let start = section.required("start", .timeOfDay)
        let end = section.required("end", .timeOfDay)
        let timeZone = section.value("time_zone", .timeZone) ?? "UTC"
        let categories = section.list("categories", .text)
        let exempt = section.list("exempt_categories", .text)
        let releaseInterval = section.value("release_interval", .duration(releaseIntervals))
        var coverage = Coverage.all
        switch (categories, exempt) {
        case (let listed?, nil): coverage = .categories(listed)
        case (nil, let exempt?): coverage = .allExcept(exempt)
        case (_?, _?):
            section.report(.invalidValue, "exempt_categories", at: ConfigurationSection.Origin(line: section.line, variable: nil),
                           "give categories (only those are held) or exempt_categories (all but those), not both")
            section.finish()
            return nil
        case (nil, nil): break
        }
        section.finish()
        guard let start, let end else { return nil }
        if start == end {
            section.report(.invalidValue, "end", at: ConfigurationSection.Origin(line: section.line, variable: nil),
                           "must differ from start (\(start)): a window that starts where it ends holds nothing")
            return nil
        }
        var window = QuietHoursConfiguration(start: start, end: end, timeZone: timeZone, coverage: coverage)
        window.releaseInterval = releaseInterval ?? window.releaseInterval
        return window
    }
}

extension ConfigurationValueType<TimeOfDay> {
    /// `HH:MM` on a 24-hour clock.
    static var timeOfDay: ConfigurationValueType {
        ConfigurationValueType(expectation: "a time of day HH:MM, 00:00 to 23:59 (quote it in YAML: \"22:00\")") {
            text throws(ConfigurationValueRejection) in
            guard let time = TimeOfDay(text) else { throw .wrongType }
            return time
        }
    }
}

extension ConfigurationValueType<String> {
    /// An IANA time zone name this machine's tzdata knows.
    static var timeZone: ConfigurationValueType {
        ConfigurationValueType(expectation: "an IANA time zone name known here, such as Europe/Berlin or UTC") {
            text throws(ConfigurationValueRejection) in
            guard TimeZoneName.isKnown(text) else { throw .wrongType }
            return text
        }
    }
}
