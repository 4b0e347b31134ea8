import Runtime

/// Whether Redis is out for the worker, and when to try it again: 100 ms doubling to 5 s, with
/// jitter. Lives on the worker's thread.
struct RedisOutage {
    private var failures = 0
    private var random = SystemRandomNumberGenerator()
    /// When the next attempt is due while Redis is out (set by each failure; read only while out).
    private(set) var nextAttempt = MonotonicClock.Instant(nanoseconds: 0)

    var isOut: Bool { failures > 0 }

    /// Records a failed attempt; returns whether Redis was available until now.
    mutating func failed(at now: MonotonicClock.Instant) -> Bool {
        nextAttempt = now + Backoff.worker.jitteredDelay(beforeRetry: failures, using: &random)
        failures += 1
        return failures == 1
    }

    /// Records an answer; returns whether Redis was out until now.
    mutating func answered() -> Bool {
        defer { failures = 0 }
        return failures > 0
    }
}
