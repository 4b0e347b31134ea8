import Synchronization
import Runtime

/// ``CollapseWindow`` kept in this process instead of Redis, with the same decisions and window
/// TTLs (docs/pipeline-stores.md): for `pushline-dev demo` when redis-server is not installed. Nothing
/// is kept when the process ends. Safe from any thread (a `Mutex`); never throws.
public final class InMemoryCollapseWindow: CollapseStore, Sendable {
    /// The intent let through last for a device and collapse id.
    private struct Latest {
        var createdAt: Int64
        var intentID: String
    }

    /// Keyed like the Redis keys: `pushline:collapse:<token>:<collapse id>`.
    private let latest = Mutex(ExpiringValues<String, Latest>())

    public init() {}

    /// The same intent again is `sameIntent`; one created at the same moment as the latest is a
    /// duplicate, an older one stale; otherwise it becomes the latest for its window (at least 1 s).
    public func decide(_ entries: [CollapseWindow.Entry]) -> [CollapseWindow.Decision] {
        let now = MonotonicClock.now
        return latest.withLock { latest in
            entries.map { entry in
                if let current = latest.value(for: entry.key, at: now) {
                    if current.intentID == entry.intentID { return .sameIntent }
                    if current.createdAt == entry.createdAt { return .duplicate }
                    if current.createdAt > entry.createdAt { return .stale }
                }
                latest.set(Latest(createdAt: entry.createdAt, intentID: entry.intentID), for: entry.key,
                           timeToLive: .seconds(max(entry.windowSeconds, 1)), at: now)
                return .accepted
            }
        }
    }
}
