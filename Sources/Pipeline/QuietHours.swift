import Foundation
import Runtime
import Synchronization

/// A pipeline's or template's quiet hours (`policies: quiet_hours:`, docs/policies.md): a daily
/// window of wall-clock time, kept in each user's own time zone (the registry profile's, else
/// `timeZone`), during which deliveries of the categories it covers are deferred until the window
/// ends. Computed with Foundation's `Calendar`, so daylight-saving transitions move the window
/// with the user's clock: a window ending at a time the transition skips ends at the first time
/// after it; one ending at a time that occurs twice ends at its first occurrence.
public struct QuietHours: Sendable, Equatable {
    /// Which categories (the intent's `category`) the window holds back.
    public enum Coverage: Sendable, Equatable {
        /// Every delivery, with a category or without.
        case all
        /// Only deliveries whose category is listed.
        case categories(Set<String>)
        /// Every delivery except those whose category is listed (security codes, calls).
        case allExcept(Set<String>)
    }

    public var start: TimeOfDay
    public var end: TimeOfDay
    /// The zone for users whose profile has none (and for explicit-token intents): an IANA name
    /// that ``TimeZoneName/isKnown(_:)``.
    public var timeZone: String
    public var coverage: Coverage
    private let calendars = ZoneCalendars()

    /// - Precondition: `timeZone` is known (``TimeZoneName/isKnown(_:)``); the configuration checks it at load.
    public init(start: TimeOfDay, end: TimeOfDay, timeZone: String, coverage: Coverage = .all) {
        precondition(TimeZoneName.isKnown(timeZone), "quiet hours need a known time zone, got \(timeZone)")
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.coverage = coverage
    }

    public static func == (lhs: QuietHours, rhs: QuietHours) -> Bool {
        (lhs.start, lhs.end, lhs.timeZone, lhs.coverage) == (rhs.start, rhs.end, rhs.timeZone, rhs.coverage)
    }

    /// Whether the window holds back a delivery of `category` (nil: the intent names none).
    public func covers(category: String?) -> Bool {
        switch coverage {
        case .all: true
        case .categories(let listed): category.map(listed.contains) ?? false
        case .allExcept(let exempt): !(category.map(exempt.contains) ?? false)
        }
    }

    /// When a delivery at `instant` (Unix milliseconds) for a user in `userTimeZone` (nil, or a
    /// name this machine does not know: ``timeZone``) may go: nil when `instant` is outside the
    /// window, else the window's end in that zone (Unix milliseconds, after `instant`).
    public func release(at instant: Int64, userTimeZone: String?) -> Int64? {
        let calendar = calendars.calendar(userTimeZone) ?? calendars.calendar(timeZone)!
        let date = Date(timeIntervalSince1970: Double(instant) / 1000)
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        guard let hour = parts.hour, let minute = parts.minute, contains(minutes: hour * 60 + minute) else { return nil }
        guard let released = calendar.nextDate(after: date, matching: DateComponents(hour: end.hour, minute: end.minute, second: 0),
                                               matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward) else {
            return nil
        }
        return Int64((released.timeIntervalSince1970 * 1000).rounded())
    }

    /// Whether a wall-clock minute of the day lies in `[start, end)`, across midnight when the
    /// window does (`22:00`–`08:00`). A window that starts where it ends is empty.
    private func contains(minutes: Int) -> Bool {
        start.minutes <= end.minutes
            ? (start.minutes..<end.minutes).contains(minutes)
            : minutes >= start.minutes || minutes < end.minutes
    }
}

/// A Gregorian calendar per time zone name, made once: building a `TimeZone` and a `Calendar`
/// costs far more than asking one, and every deferred delivery asks. Only known zones are kept (at
/// most tzdata's few hundred names). Safe from any thread.
private final class ZoneCalendars: Sendable {
    private let calendars = Mutex<[String: Calendar]>([:])

    /// The calendar of `name`, nil when `name` is nil or not a known zone.
    func calendar(_ name: String?) -> Calendar? {
        guard let name else { return nil }
        return calendars.withLock { calendars in
            if let known = calendars[name] { return known }
            guard TimeZoneName.isKnown(name), let zone = TimeZone(identifier: name) else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            calendars[name] = calendar
            return calendar
        }
    }
}
