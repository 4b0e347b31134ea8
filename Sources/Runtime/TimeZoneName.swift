import Foundation

/// IANA time zone names (`Europe/Berlin`) as Pushline takes them: from a user's profile in the
/// token registry, and as a pipeline's quiet-hours default. A name is known when Foundation's time
/// zone database (tzdata) has it; links such as `US/Pacific` count. Here, in the lowest module both
/// the registry (Pipeline) and the configuration load share, so both check names alike.
public enum TimeZoneName {
    /// Whether `name` names a zone Foundation knows. Offsets (`GMT+2`) are not zones: refused.
    public static func isKnown(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("GMT+"), !name.hasPrefix("GMT-") else { return false }
        return TimeZone(identifier: name) != nil
    }

    /// Why `name` is refused, in words, for an error's reason.
    public static func unknownReason(_ name: String) -> String {
        "\"\(name)\" is not an IANA time zone known here (e.g. Europe/Berlin, America/New_York, UTC)"
    }
}
