import Redis

/// Where deferred deliveries wait for their release (quiet hours, docs/policies.md): ``DeferredStore``
/// in Redis, or ``InMemoryDeferredStore`` in this process (`pushline-dev demo` without redis-server).
/// Both lease what they take (an entry taken and not completed is due again when its lease ends).
public protocol DeferredEntryStore {
    /// Keeps `entries`; an entry with the id of one kept replaces it. An entry with a
    /// ``DeferredEntry/coalescing`` key replaces the entry kept last under that key with another id:
    /// that one is marked replaced and made due at once, so its release ends it.
    func keep(_ entries: [DeferredEntry]) throws(RedisError)
    /// Whether each entry id was replaced by a newer entry under its coalescing key.
    func replaced(_ ids: [String]) throws(RedisError) -> [Bool]
    /// Takes the entries due at `now` (Unix ms), leasing each to the caller.
    func takeDue(now: Int64) throws(RedisError) -> [DeferredEntry]
    /// Removes the `taken` entries, their release being safe — each only while it is still under the
    /// lease its take gave it: one kept again since (a background push's release deferred again by
    /// the worker that read it, before this completion) stays, with its new release time; so does
    /// an entry no take returned (without ``DeferredEntry/leasedUntil``).
    func complete(_ taken: [DeferredEntry]) throws(RedisError)
}

extension DeferredStore: DeferredEntryStore {}
