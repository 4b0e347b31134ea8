import Redis

/// One throttle's bucket and how many deliveries wait for its tokens.
public struct ThrottleRequest: Sendable, Equatable {
    /// The bucket's name: `app:<app>`, `campaign:<campaign>` or `pool:<pool>` (the Redis key is
    /// `pushline:throttle:{<bucket>}`).
    public var bucket: String
    /// Deliveries per second, across every worker of the group.
    public var rate: Double
    /// Tokens the bucket holds at most: deliveries that may go at once after a quiet spell.
    public var burst: Int
    /// Deliveries waiting.
    public var wanted: Int

    public init(bucket: String, rate: Double, burst: Int, wanted: Int) {
        self.bucket = bucket
        self.rate = rate
        self.burst = burst
        self.wanted = wanted
    }
}

/// What a throttle's bucket gave.
public struct ThrottleGrant: Sendable, Equatable {
    /// Deliveries that may go now (at most the number wanted).
    public var granted: Int
    /// When not all were granted: milliseconds until the bucket holds a token again; 0 otherwise.
    public var retryAfterMilliseconds: Int

    public init(granted: Int, retryAfterMilliseconds: Int) {
        self.granted = granted
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }
}

/// Where the throttles' token buckets live: ``RedisThrottle`` (shared by every worker, one script
/// call per bucket, all in one round trip) or ``InMemoryThrottle`` (this process only, for
/// `pushline-dev demo` without redis-server).
public protocol ThrottleStore {
    /// Takes tokens from each request's bucket; one grant per request, in order.
    func take(_ requests: [ThrottleRequest]) throws(RedisError) -> [ThrottleGrant]
}
