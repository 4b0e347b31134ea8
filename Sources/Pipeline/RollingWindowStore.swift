import Redis

/// Where the worker counts deliveries over rolling windows for its delivery policies (frequency
/// caps, the seeds' budgets): ``RollingWindows`` in Redis, shared by every worker, or
/// ``InMemoryRollingWindows`` in this process (`pushline-dev demo` without redis-server). Both follow
/// docs/pipeline-stores.md and pass the same behaviour tests; the in-memory one never fails.
public protocol RollingWindowStore {
    /// One decision per entry, in order; a counted entry is seen by the entries after it.
    func count(_ entries: [RollingWindows.Entry]) throws(RedisError) -> [RollingWindows.Decision]
    /// When the earliest delivery still counted under each key was counted (Unix ms), nil for an
    /// empty key: with it, when a full window has room again.
    func earliest(_ keys: [String]) throws(RedisError) -> [Int64?]
}
