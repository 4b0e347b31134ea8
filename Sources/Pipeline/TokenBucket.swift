/// A token bucket in milliseconds: it fills at `rate` tokens per second up to `burst`, starts full,
/// and each delivery takes one token. The arithmetic of ``RedisThrottle``'s script, kept here for
/// ``InMemoryThrottle`` and for the tests that state it (docs/policies.md).
public struct TokenBucket: Sendable, Equatable {
    /// Tokens per second.
    public let rate: Double
    /// The most tokens it holds (at least 1).
    public let burst: Double
    public private(set) var tokens: Double
    /// When ``tokens`` was last brought up to date, milliseconds on the caller's clock.
    public private(set) var updatedAt: Int64

    public init(rate: Double, burst: Int, now: Int64) {
        self.rate = rate
        self.burst = Double(max(1, burst))
        tokens = self.burst
        updatedAt = now
    }

    /// Takes up to `wanted` whole tokens at `now` (milliseconds; a clock that went back adds
    /// nothing). What was not granted is worth waiting ``ThrottleGrant/retryAfterMilliseconds`` for.
    public mutating func take(_ wanted: Int, now: Int64) -> ThrottleGrant {
        if now > updatedAt {
            tokens = min(burst, tokens + Double(now - updatedAt) * rate / 1_000)
            updatedAt = now
        }
        let granted = min(wanted, Int(tokens.rounded(.down)))
        tokens -= Double(granted)
        let retryAfter = granted < wanted ? Int(((1 - tokens) * 1_000 / rate).rounded(.up)) : 0
        return ThrottleGrant(granted: granted, retryAfterMilliseconds: max(retryAfter, granted < wanted ? 1 : 0))
    }
}
