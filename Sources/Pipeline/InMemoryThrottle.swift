import Runtime
import Synchronization

/// ``RedisThrottle`` kept in this process: the same buckets (``TokenBucket``) on the monotonic
/// clock, for `pushline-dev demo` without redis-server. Throttles only this process. Safe from any
/// thread (a `Mutex`); never throws.
public final class InMemoryThrottle: ThrottleStore, Sendable {
    private let buckets = Mutex([String: TokenBucket]())

    public init() {}

    public func take(_ requests: [ThrottleRequest]) -> [ThrottleGrant] {
        let now = Int64(MonotonicClock.nanoseconds() / 1_000_000)
        return buckets.withLock { buckets in
            requests.map { request in
                var bucket = buckets[request.bucket] ?? TokenBucket(rate: request.rate, burst: request.burst, now: now)
                let grant = bucket.take(request.wanted, now: now)
                buckets[request.bucket] = bucket
                return grant
            }
        }
    }
}
