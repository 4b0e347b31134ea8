import Runtime

/// Durations as configuration files write them: a whole number and a unit, `ms`, `s`, `m`, `h`
/// or `d` (`250ms`, `30s`, `24h`).
public enum DurationText {
    private static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
    ]

    /// The duration `text` spells, or nil.
    public static func parse(_ text: String) -> Duration? {
        // Longest suffix first, so "ms" is not read as "m".
        for unit in units.sorted(by: { $0.suffix.count > $1.suffix.count }) where text.hasSuffix(unit.suffix) {
            let digits = text.dropLast(unit.suffix.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int64(digits) else { return nil }
            let (milliseconds, overflow) = count.multipliedReportingOverflow(by: unit.milliseconds)
            return overflow ? nil : .milliseconds(milliseconds)
        }
        return nil
    }

    /// The largest unit that spells `duration` exactly: `90s`, `5m`, `250ms`.
    static func format(_ duration: Duration) -> String {
        let milliseconds = Int64(duration.wholeMilliseconds)
        guard milliseconds != 0 else { return "0s" }
        let unit = units.last { milliseconds % $0.milliseconds == 0 } ?? units[0]
        return "\(milliseconds / unit.milliseconds)\(unit.suffix)"
    }
}
