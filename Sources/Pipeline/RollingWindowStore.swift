import Redis

/// Where the worker counts deliveries over rolling windows for its delivery policies (frequency
/// caps, the seeds' budgets): ``RollingWindows`` in Redis, shared by every worker, or
/// ``InMemoryRollingWindows`` in this process (`pushline-dev demo` without redis-server). Both follow
/// docs/pipeline-stores.md and pass the same behaviour tests; the in-memory one never fails.
public protocol RollingWindowStore {
    /// One decision per entry, in order; a counted entry is seen by the entries after it.
    func count(_ entries: [RollingWindows.Entry]) throws(RedisError) -> [RollingWindows.Decision]
    /// When the earliest delivery counted under each key at or after `start` was counted (Unix ms),
    /// nil for none: with `start` a window's first millisecond, when that full window has room
    /// again. Deliveries counted before `start` may still be kept (Redis drops them only now and
    /// then) and must not answer: the window would seem to have room already.
    func earliest(_ keys: [String], countedSince start: Int64) throws(RedisError) -> [Int64?]
}
