import Synchronization

/// ``RollingWindows`` kept in this process instead of Redis, with the same decisions: for
/// `pushline-dev demo` when redis-server is not installed. Nothing is kept when the process ends.
/// Safe from any thread (a `Mutex`); never throws.
public final class InMemoryRollingWindows: RollingWindowStore, Sendable {
    /// Per key, the counted members with when they were counted (Unix milliseconds).
    private let counted = Mutex([String: [(member: String, at: Int64)]]())

    public init() {}

    public func count(_ entries: [RollingWindows.Entry]) -> [RollingWindows.Decision] {
        counted.withLock { counted in
            entries.map { entry in
                var members = counted[entry.key, default: []].filter { $0.at > entry.now - entry.longestWindow }
                defer { counted[entry.key] = members.isEmpty ? nil : members }
                if members.contains(where: { $0.member == entry.member }) { return .alreadyCounted }
                for limit in entry.limits where members.count(where: { $0.at > entry.now - limit.windowMilliseconds }) >= limit.limit {
                    return .overLimit
                }
                members.append((entry.member, entry.now))
                return .counted
            }
        }
    }

    public func earliest(_ keys: [String], countedSince start: Int64) -> [Int64?] {
        counted.withLock { counted in keys.map { counted[$0]?.lazy.map(\.at).filter { $0 >= start }.min() } }
    }
}
