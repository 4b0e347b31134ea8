/// A pool's deliveries ready to be sent: those of the lanes above bulk first, then bulk, each
/// oldest first, so that a request above bulk never waits behind a bulk one the pool has not yet
/// written (docs/policies.md, "Bulk yields at the sender"). Confined to the pool's loop.
struct WaitingDeliveries {
    private var aboveBulk = RingQueue<PendingDelivery>()
    private var bulk = RingQueue<PendingDelivery>()

    var isEmpty: Bool { aboveBulk.isEmpty && bulk.isEmpty }

    /// The next to send: the oldest above bulk, else the oldest bulk one.
    var first: PendingDelivery? { aboveBulk.first ?? bulk.first }

    mutating func append(_ delivery: PendingDelivery) {
        if delivery.isBulk { bulk.append(delivery) } else { aboveBulk.append(delivery) }
    }

    /// Adds one batch's deliveries, which are all bulk or none.
    mutating func append(contentsOf deliveries: [PendingDelivery]) {
        guard let first = deliveries.first else { return }
        if first.isBulk { bulk.append(contentsOf: deliveries) } else { aboveBulk.append(contentsOf: deliveries) }
    }

    /// Takes ``first``.
    mutating func removeFirst() {
        if aboveBulk.isEmpty { bulk.removeFirst() } else { aboveBulk.removeFirst() }
    }

    /// Empties the queue and returns what it held.
    mutating func removeAll() -> [PendingDelivery] {
        aboveBulk.removeAll() + bulk.removeAll()
    }
}
