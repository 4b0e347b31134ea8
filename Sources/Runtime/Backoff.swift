/// Exponential back-off: the wait before retry n (counting from 0) is `initial × 2ⁿ`, capped at
/// `maximum`. The project's one back-off curve: APNs retries, reconnects and circuit probes, Redis
/// reconnects, the worker's Redis outage and its records Kafka refused.
///
/// ``jitteredDelay(beforeRetry:using:)`` draws between half and all of that wait ("equal jitter"):
/// clients that failed together do not retry together, and none waits longer than `maximum`.
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait before retry `retry` (0 for the first; a negative count is the first), without jitter.
    public func delay(beforeRetry retry: Int) -> Duration {
        let doublings = min(max(retry, 0), 30)
        return min(maximum, initial * (1 << doublings))
    }

    /// A random wait between half and all of ``delay(beforeRetry:)``.
    public func jitteredDelay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        delay(beforeRetry: retry) * Double.random(in: 0.5...1.0, using: &generator)
    }
}
