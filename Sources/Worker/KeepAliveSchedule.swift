import Runtime

/// When the Redis stage says its worker lives and when it renews the `pending` claims it holds:
/// the liveness key every third of `dedupe.owner_ttl`, the claims every third of
/// `dedupe.pending_ttl` (in the same round trip when both are due). A claim is renewed before a
/// third of its TTL is left, however recently it was taken; renewing every claim as often as the
/// liveness key (3 s) sent a Lua call per delivery held every second, most of them to claims
/// minutes from expiring.
struct KeepAliveSchedule {
    let livenessMilliseconds: Int
    private let livenessInterval: Duration
    private let renewalInterval: Duration
    /// The liveness key is due at once (before the first claim names it).
    private var nextLiveness: MonotonicClock.Instant
    /// Claims taken from `start` on have their whole TTL: the first renewal is a third of it away.
    private var nextRenewal: MonotonicClock.Instant

    init(ownerTTL: Duration, pendingTTL: Duration, start: MonotonicClock.Instant) {
        livenessMilliseconds = ownerTTL.wholeMilliseconds
        livenessInterval = ownerTTL / 3
        renewalInterval = pendingTTL / 3
        nextLiveness = start
        nextRenewal = start + renewalInterval
    }

    /// The next moment something is due.
    var next: MonotonicClock.Instant { min(nextLiveness, nextRenewal) }

    /// Nil when nothing is due at `now`; otherwise whether the claims are to be renewed (the
    /// liveness key always is).
    func due(at now: MonotonicClock.Instant) -> Bool? {
        guard now >= next else { return nil }
        return now >= nextRenewal
    }

    /// Notes a keep-alive round trip that succeeded at `now`.
    mutating func done(renewing: Bool, at now: MonotonicClock.Instant) {
        nextLiveness = now + livenessInterval
        if renewing { nextRenewal = now + renewalInterval }
    }
}
