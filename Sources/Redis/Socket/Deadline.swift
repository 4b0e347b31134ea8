/// A point in monotonic time by which a connect or a call must be done.
struct Deadline {
    let instant: ContinuousClock.Instant

    init(after timeout: Duration) {
        instant = .now + timeout
    }

    var hasPassed: Bool {
        ContinuousClock.now >= instant
    }

    /// What is left, in whole milliseconds rounded up (a `poll` timeout), 0 once passed.
    var remainingMilliseconds: Int32 {
        let remaining = ContinuousClock.now.duration(to: instant)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        return Int32(clamping: seconds * 1000 + (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond)
    }
}
