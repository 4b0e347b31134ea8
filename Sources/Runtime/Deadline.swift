/// A point in monotonic time by which a connect, a call or a wait must be done: the project's one
/// deadline type (Redis calls, the local stack's waits, benchmark progress).
public struct Deadline: Sendable {
    /// When it passes.
    public let instant: MonotonicClock.Instant
    /// How long it was set for.
    public let timeout: Duration
    private let clock: MonotonicClock

    /// A deadline `timeout` from now on `clock`.
    public init(after timeout: Duration, clock: MonotonicClock = .system) {
        self.instant = clock.now + timeout
        self.timeout = timeout
        self.clock = clock
    }

    /// Whether now is at or past ``instant``.
    public var hasPassed: Bool { clock.now >= instant }

    /// What is left, zero once passed.
    public var remaining: Duration { max(.zero, clock.now.duration(to: instant)) }

    /// What is left in whole milliseconds rounded up (a `poll` timeout), 0 once passed.
    public var remainingMilliseconds: Int32 {
        let remaining = remaining
        guard remaining > .zero else { return 0 }
        return (remaining + .nanoseconds(999_999)).timeoutMilliseconds
    }
}
