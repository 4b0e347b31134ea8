#if canImport(Glibc)
import Glibc
#endif

/// The process's one wall clock (`CLOCK_REALTIME`), for timestamps written into records and logs,
/// never for measuring. Injectable like ``MonotonicClock``.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that reads nanoseconds since the UNIX epoch from `read`.
    public init(readingNanosecondsSinceEpoch read: @escaping @Sendable () -> Int64) {
        self.read = read
    }

    /// `CLOCK_REALTIME`.
    public static let system = WallClock {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Nanoseconds since the UNIX epoch.
    public func nanosecondsSinceEpoch() -> Int64 { read() }

    /// Seconds since the UNIX epoch, with their fraction: the unit of Prometheus' timestamp gauges.
    public func secondsSinceEpoch() -> Double { Double(read()) / 1_000_000_000 }

    /// Milliseconds since the UNIX epoch: the unit of the records' timestamps.
    public func millisecondsSinceEpoch() -> Int64 { read() / 1_000_000 }

    /// Milliseconds since the UNIX epoch on ``system``.
    public static func millisecondsSinceEpoch() -> Int64 { system.millisecondsSinceEpoch() }

    /// Now as RFC 3339 in UTC with milliseconds (`2026-11-30T08:23:32.123Z`), without Foundation.
    public func utcTimestamp() -> String {
        let nanoseconds = read()
        return Self.utcTimestamp(secondsSinceEpoch: time_t(nanoseconds / 1_000_000_000),
                                 milliseconds: Int(nanoseconds % 1_000_000_000 / 1_000_000))
    }

    private static func utcTimestamp(secondsSinceEpoch seconds: time_t, milliseconds: Int) -> String {
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
