/// The deliveries a pool has yet to send, oldest first: O(1) to add at the back and to take from
/// the front, without moving the others (a ring buffer whose capacity doubles when it is full).
struct DeliveryQueue {
    /// A power of two, so positions wrap with a mask.
    private var slots: [PendingDelivery?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ delivery: PendingDelivery) {
        if count == slots.count { grow(toHold: count + 1) }
        slots[(head + count) & (slots.count - 1)] = delivery
        count += 1
    }

    mutating func append(contentsOf deliveries: [PendingDelivery]) {
        if count + deliveries.count > slots.count { grow(toHold: count + deliveries.count) }
        for delivery in deliveries { append(delivery) }
    }

    /// The oldest delivery, without taking it.
    var first: PendingDelivery? { isEmpty ? nil : slots[head] }

    /// Takes the oldest delivery.
    mutating func removeFirst() {
        guard !isEmpty else { return }
        slots[head] = nil
        head = (head + 1) & (slots.count - 1)
        count -= 1
    }

    /// Empties the queue and returns what it held.
    mutating func removeAll() -> [PendingDelivery] {
        let held = (0..<count).map { slots[(head + $0) & (slots.count - 1)]! }
        slots = Array(repeating: nil, count: 16)
        head = 0
        count = 0
        return held
    }

    /// Moves the deliveries, oldest first, into storage of the next power of two that holds `wanted`.
    private mutating func grow(toHold wanted: Int) {
        var capacity = slots.count
        while capacity < wanted { capacity *= 2 }
        var grown = [PendingDelivery?](repeating: nil, count: capacity)
        for offset in 0..<count { grown[offset] = slots[(head + offset) & (slots.count - 1)] }
        slots = grown
        head = 0
    }
}
