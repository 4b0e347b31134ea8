#if canImport(Glibc)
import Glibc
#endif

/// The process's one monotonic clock (`CLOCK_MONOTONIC`), for everything that measures or times out
/// (never the wall clock). Code that reads it through an instance can be handed a ``TestClock``'s
/// clock instead of ``system``; the static members read ``system``.
public struct MonotonicClock: Sendable {
    /// A point in monotonic time, nanoseconds since an unspecified start.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Nanoseconds since the clock's unspecified start.
        public let nanoseconds: UInt64

        /// The instant `nanoseconds` after the clock's start.
        public init(nanoseconds: UInt64) {
            self.nanoseconds = nanoseconds
        }

        /// Now on ``MonotonicClock/system``.
        public static var now: Instant { MonotonicClock.system.now }

        /// The instant `duration` later (earlier when negative), stopping at the clock's start.
        public func advanced(by duration: Duration) -> Instant {
            let offset = duration.wholeNanoseconds
            return Instant(nanoseconds: offset >= 0 ? nanoseconds &+ UInt64(offset)
                                                    : nanoseconds - min(nanoseconds, offset.magnitude))
        }

        /// The time from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Duration {
            .nanoseconds(Int64(bitPattern: other.nanoseconds &- nanoseconds))
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.nanoseconds < rhs.nanoseconds
        }

        public static func + (lhs: Instant, rhs: Duration) -> Instant {
            lhs.advanced(by: rhs)
        }

        public static func - (lhs: Instant, rhs: Duration) -> Instant {
            lhs.advanced(by: .zero - rhs)
        }

        public static func - (lhs: Instant, rhs: Instant) -> Duration {
            rhs.duration(to: lhs)
        }

        public static func += (lhs: inout Instant, rhs: Duration) {
            lhs = lhs.advanced(by: rhs)
        }
    }

    private let read: @Sendable () -> UInt64

    /// A clock that reads its nanoseconds from `read` (``system``, or a ``TestClock``).
    public init(reading read: @escaping @Sendable () -> UInt64) {
        self.read = read
    }

    /// `CLOCK_MONOTONIC`.
    public static let system = MonotonicClock {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Now on this clock.
    public var now: Instant { Instant(nanoseconds: read()) }

    /// Now on ``system``.
    public static var now: Instant { system.now }

    /// Now on ``system``, in nanoseconds: the unit of the event loop's timers.
    public static func nanoseconds() -> UInt64 { system.now.nanoseconds }

    /// Whole milliseconds from now on ``system`` until `deadline` (nanoseconds as ``nanoseconds()``
    /// reads them), rounded up so a wait of that long reaches it; 0 once it has passed. The one
    /// conversion for the event loops' and the sender's deadlines, which stay bare nanoseconds
    /// (docs/worker.md, "One vocabulary for the basics").
    public static func milliseconds(until deadline: UInt64) -> Int {
        let now = nanoseconds()
        return deadline > now ? Int(clamping: (deadline - now + 999_999) / 1_000_000) : 0
    }

    /// How long `work` took on this clock.
    public func measure(_ work: () throws -> Void) rethrows -> Duration {
        let start = now
        try work()
        return start.duration(to: now)
    }
}
