#if canImport(Glibc)
import Glibc
#endif

/// The wall-clock time as RFC 3339 in UTC with milliseconds (`2026-11-30T08:23:32.123Z`), formatted
/// without Foundation: `clock_gettime` and `gmtime_r`.
enum UTCTimestamp {
    /// Now.
    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return format(secondsSinceEpoch: time.tv_sec, milliseconds: Int(time.tv_nsec / 1_000_000))
    }

    private static func format(secondsSinceEpoch seconds: time_t, milliseconds: Int) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-\(padded(Int(parts.tm_mday), 2))"
            + "T\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
            + ".\(padded(milliseconds, 3))Z"
    }

    private static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
