import Pipeline
import Runtime

/// Deliveries whose idempotency claim another attempt holds (`pending`): each is claimed again
/// once its recheck time comes, until that attempt settles the claim (→ suppressed) or the claim
/// disappears (released, or expired after the pending TTL → claimed and sent). A delivery whose
/// key this worker records meanwhile (the attempt was this worker's own copy of it, still in
/// flight) is claimed again at once instead (``wake(recorded:at:)``). Their messages stay
/// incomplete meanwhile. Lives on the worker's thread.
struct DeferredDeliveries {
    /// In the order deferred, so recheck times increase.
    private var waiting: [(delivery: PlannedDelivery, due: MonotonicClock.Instant)] = []
    /// Taken out of ``waiting`` before their recheck time, due since ``wokenAt``.
    private var woken: [PlannedDelivery] = []
    private var wokenAt: MonotonicClock.Instant?
    /// How many deliveries wait under each key.
    private var keys: [DeliveryKey: Int] = [:]

    var isEmpty: Bool { waiting.isEmpty && woken.isEmpty }

    /// The earliest recheck time.
    var nextDue: MonotonicClock.Instant? { wokenAt ?? waiting.first?.due }

    mutating func add(_ deliveries: [PlannedDelivery], until due: MonotonicClock.Instant) {
        waiting += deliveries.map { ($0, due) }
        for delivery in deliveries { keys[delivery.key, default: 0] += 1 }
    }

    /// The deliveries waiting under the key of one of `recorded` are due at `now`: this worker
    /// recorded that delivery, so the claim they waited behind (its own) is settled or released, and
    /// claiming them again decides them (`suppressed`, or claimed and sent) without waiting for
    /// their recheck time.
    mutating func wake(recorded: [SentDelivery], at now: MonotonicClock.Instant) {
        guard !keys.isEmpty else { return }
        var due = Set<DeliveryKey>()
        for sent in recorded where keys[sent.planned.key] != nil { due.insert(sent.planned.key) }
        guard !due.isEmpty else { return }
        waiting.removeAll { entry in
            guard due.contains(entry.delivery.key) else { return false }
            woken.append(entry.delivery)
            return true
        }
        wokenAt = wokenAt ?? now
    }

    /// Drops the deliveries for which `handedBack` holds (their messages went to another owner);
    /// none of them holds a claim.
    mutating func removeAll(where handedBack: (PlannedDelivery) -> Bool) {
        waiting.removeAll { handedBack($0.delivery) }
        woken.removeAll(where: handedBack)
        if woken.isEmpty { wokenAt = nil }
        keys = [:]
        for delivery in waiting.map(\.delivery) + woken { keys[delivery.key, default: 0] += 1 }
    }

    /// The deliveries whose recheck time has come (the woken ones first), removed.
    mutating func takeDue(at now: MonotonicClock.Instant) -> [PlannedDelivery] {
        let count = waiting.prefix { $0.due <= now }.count
        let due = woken + waiting.prefix(count).map(\.delivery)
        waiting.removeFirst(count)
        woken = []
        wokenAt = nil
        for delivery in due {
            if let left = keys[delivery.key], left > 1 { keys[delivery.key] = left - 1 } else { keys[delivery.key] = nil }
        }
        return due
    }
}
