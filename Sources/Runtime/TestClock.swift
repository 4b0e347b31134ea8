import Synchronization

/// A monotonic clock that moves only when told: for tests of code that measures or times out.
public final class TestClock: Sendable {
    private let nanoseconds: Mutex<UInt64>

    /// A clock standing at `start` nanoseconds.
    public init(start: UInt64 = 1_000_000_000) {
        nanoseconds = Mutex(start)
    }

    /// The clock to hand to the code under test.
    public var clock: MonotonicClock {
        MonotonicClock { [self] in nanoseconds.withLock { $0 } }
    }

    /// The same clock read as a wall clock, its nanoseconds taken as since the UNIX epoch (start it
    /// at a date): for code that keeps time in records or in Redis (the delivery policies' windows).
    public var wallClock: WallClock {
        WallClock { [self] in Int64(nanoseconds.withLock { $0 }) }
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        nanoseconds.withLock { $0 = MonotonicClock.Instant(nanoseconds: $0).advanced(by: duration).nanoseconds }
    }
}
