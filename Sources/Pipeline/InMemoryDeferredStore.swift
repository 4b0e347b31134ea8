import Redis
import Runtime
import Synchronization

/// ``DeferredStore``'s entries kept in this process instead of Redis, with the same lease
/// (docs/pipeline-stores.md): for `pushline-dev demo` when redis-server is not installed. Nothing is
/// kept when the process ends. Safe from any thread (a `Mutex`); never throws.
public final class InMemoryDeferredStore: DeferredEntryStore, Sendable {
    /// An entry, and whether it waits (due at its release time; at once when replaced) or is leased
    /// by a take (until the lease's end, which completing checks).
    private struct Kept {
        enum State {
            case waiting(dueAt: Int64)
            case leased(until: Int64)
        }

        var entry: DeferredEntry
        var state: State

        /// Due again the millisecond after a lease, as in Redis (a score half past its end).
        var dueAt: Int64 {
            switch state {
            case .waiting(let dueAt): dueAt
            case .leased(let until): until + 1
            }
        }

        var leasedUntil: Int64? {
            if case .leased(let until) = state { until } else { nil }
        }
    }

    public let configuration: DeferredStore.Configuration
    private let entries = Mutex<[String: Kept]>([:])
    /// Per coalescing key, the id of the newest entry kept under it; and the ids replaced.
    private let coalesced = Mutex<(newest: [String: String], replaced: Set<String>)>(([:], []))

    public init(configuration: DeferredStore.Configuration = DeferredStore.Configuration()) {
        self.configuration = configuration
    }

    /// Keeps `kept`; a coalescing entry replaces the newest under its key (marked, due at once).
    /// The coalescing marks are kept as long as the process, not ``DeferredStore/Configuration/coalescingTTL``.
    public func keep(_ kept: [DeferredEntry]) {
        entries.withLock { entries in
            for entry in kept {
                entries[entry.id] = Kept(entry: entry, state: .waiting(dueAt: entry.releaseAt))
                guard let key = entry.coalescing else { continue }
                coalesced.withLock { coalesced in
                    guard let replaced = coalesced.newest.updateValue(entry.id, forKey: key), replaced != entry.id else { return }
                    coalesced.replaced.insert(replaced)
                    entries[replaced]?.state = .waiting(dueAt: 0)
                }
            }
        }
    }

    public func replaced(_ ids: [String]) -> [Bool] {
        coalesced.withLock { coalesced in ids.map { coalesced.replaced.contains($0) } }
    }

    /// The entries due at `now`, earliest first, at most ``DeferredStore/Configuration/takeLimit``
    /// times its shards (what one take of the Redis store can return), each leased until `now + lease`.
    public func takeDue(now: Int64) -> [DeferredEntry] {
        let leasedUntil = now + Int64(configuration.lease.wholeMilliseconds)
        return entries.withLock { entries in
            let due = entries.values.filter { $0.dueAt <= now }.sorted { $0.dueAt < $1.dueAt }
                .prefix(configuration.takeLimit * configuration.shards)
            for kept in due {
                entries[kept.entry.id]?.state = .leased(until: leasedUntil)
            }
            return due.map { kept in
                var entry = kept.entry
                entry.leasedUntil = leasedUntil
                return entry
            }
        }
    }

    /// Removes each of `taken` still under the lease its take gave it; one no take returned stays.
    public func complete(_ taken: [DeferredEntry]) {
        entries.withLock { entries in
            for entry in taken where entry.leasedUntil != nil && entries[entry.id]?.leasedUntil == entry.leasedUntil {
                entries[entry.id] = nil
            }
        }
    }

    /// How many entries are kept (due, leased or waiting).
    public func count() -> Int {
        entries.withLock { $0.count }
    }
}
