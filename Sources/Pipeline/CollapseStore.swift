import Redis

/// Where the worker keeps its collapse windows: ``CollapseWindow`` in Redis, or
/// ``InMemoryCollapseWindow`` in this process (`pushline-dev demo` without redis-server). Both follow
/// docs/pipeline-stores.md and pass the same behaviour tests; the in-memory one never fails.
public protocol CollapseStore {
    /// One decision per entry, in order; an accepted entry is recorded for its window, so later
    /// entries of the same batch see it.
    func decide(_ entries: [CollapseWindow.Entry]) throws(RedisError) -> [CollapseWindow.Decision]
}
