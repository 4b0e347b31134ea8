import Glibc
import Runtime

/// How a connection retries connecting: bounded attempts, each after the jittered wait of a
/// ``Backoff`` from `initialDelay` to `maximumDelay`: waits grow, never synchronise many clients
/// that lost the same server, and never pass ``maximumDelay``.
public struct RedisReconnectPolicy: Sendable, Equatable {
    /// How many times to retry after the first attempt fails; 0 tries once.
    public var maximumRetries: Int
    public var initialDelay: Duration
    public var maximumDelay: Duration

    public init(maximumRetries: Int = 5, initialDelay: Duration = .milliseconds(50), maximumDelay: Duration = .seconds(2)) {
        self.maximumRetries = maximumRetries
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// One attempt, no retry: for callers that run their own retry loop.
    public static let never = RedisReconnectPolicy(maximumRetries: 0)

    /// The wait before retry `retry` (0 for the first retry).
    public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        Backoff(initial: initialDelay, maximum: maximumDelay).jitteredDelay(beforeRetry: retry, using: &generator)
    }

    /// Runs `attempt` until it succeeds, retrying a retryable failure up to ``maximumRetries`` times
    /// after each ``delay(beforeRetry:using:)``; throws the last failure, or the first one that is
    /// not retryable. Blocks its thread while it waits.
    func retrying<Result>(using generator: inout some RandomNumberGenerator,
                          _ attempt: () throws(RedisError) -> Result) throws(RedisError) -> Result {
        var retry = 0
        while true {
            do {
                return try attempt()
            } catch {
                guard error.isRetryable, retry < maximumRetries else { throw error }
                Self.sleep(delay(beforeRetry: retry, using: &generator))
                retry += 1
            }
        }
    }

    /// Sleeps `duration`, resuming after signals.
    private static func sleep(_ duration: Duration) {
        let nanoseconds = duration.wholeNanoseconds
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1, errno == EINTR {
            request = remaining
        }
    }
}
