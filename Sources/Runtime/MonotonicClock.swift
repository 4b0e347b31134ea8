#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time in nanoseconds, for deadlines and timers (never the wall clock).
public enum MonotonicClock {
    public static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
