import Runtime

/// Deliveries whose idempotency claim another attempt holds (`pending`): each is claimed again
/// once its recheck time comes, until that attempt settles the claim (→ suppressed) or the claim
/// disappears (released, or expired after the pending TTL → claimed and sent). Their messages stay
/// incomplete meanwhile. Lives on the worker's thread.
struct DeferredDeliveries {
    /// In the order deferred, so recheck times increase.
    private var waiting: [(delivery: PlannedDelivery, due: MonotonicClock.Instant)] = []

    var isEmpty: Bool { waiting.isEmpty }

    /// The earliest recheck time.
    var nextDue: MonotonicClock.Instant? { waiting.first?.due }

    mutating func add(_ deliveries: [PlannedDelivery], until due: MonotonicClock.Instant) {
        waiting += deliveries.map { ($0, due) }
    }

    /// Drops the deliveries for which `handedBack` holds (their messages went to another owner);
    /// none of them holds a claim.
    mutating func removeAll(where handedBack: (PlannedDelivery) -> Bool) {
        waiting.removeAll { handedBack($0.delivery) }
    }

    /// The deliveries whose recheck time has come, removed.
    mutating func takeDue(at now: MonotonicClock.Instant) -> [PlannedDelivery] {
        let count = waiting.prefix { $0.due <= now }.count
        defer { waiting.removeFirst(count) }
        return waiting.prefix(count).map(\.delivery)
    }
}
