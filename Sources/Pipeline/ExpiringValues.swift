import Runtime

/// Values with a time to live on the continuous clock, for the in-memory stores: a value past its
/// expiry reads as absent (as a Redis key with `PX`/`EX` would) and is dropped when next written
/// over, or by a sweep once the table has doubled since the last one, so expired values never
/// pile up. Not thread-safe: its store keeps it inside a `Mutex`.
struct ExpiringValues<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, expiresAt: MonotonicClock.Instant)] = [:]
    /// The entry count at which the next write sweeps expired values out.
    private var sweepThreshold = 1024

    /// The value under `key`, unless it has expired by `now`.
    func value(for key: Key, at now: MonotonicClock.Instant) -> Value? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry.value
    }

    /// Stores `value` under `key` until `now + timeToLive`.
    mutating func set(_ value: Value, for key: Key, timeToLive: Duration, at now: MonotonicClock.Instant) {
        entries[key] = (value, now + timeToLive)
        if entries.count >= sweepThreshold {
            entries = entries.filter { $0.value.expiresAt > now }
            sweepThreshold = max(1024, entries.count * 2)
        }
    }

    mutating func remove(_ key: Key) {
        entries[key] = nil
    }
}
