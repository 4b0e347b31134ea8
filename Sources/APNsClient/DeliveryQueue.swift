/// The deliveries a pool has yet to send, oldest first: O(1) to add at the back and to take from
/// the front (an array with a moving head, compacted when half of it is spent).
struct DeliveryQueue {
    private var storage: [PendingDelivery] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }

    mutating func append(_ delivery: PendingDelivery) {
        storage.append(delivery)
    }

    mutating func append(contentsOf deliveries: [PendingDelivery]) {
        storage.append(contentsOf: deliveries)
    }

    /// The oldest delivery, without taking it.
    var first: PendingDelivery? { isEmpty ? nil : storage[head] }

    mutating func removeFirst() {
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Empties the queue and returns what it held.
    mutating func removeAll() -> [PendingDelivery] {
        defer {
            storage.removeAll()
            head = 0
        }
        return Array(storage[head...])
    }
}
