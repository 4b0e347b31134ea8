/// A first-in first-out queue: O(1) to add at the back and to take from the front, without moving
/// the others (a ring buffer whose capacity doubles when it is full).
struct RingQueue<Element> {
    /// A power of two, so positions wrap with a mask.
    private var slots: [Element?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        if count == slots.count { grow(toHold: count + 1) }
        slots[(head + count) & (slots.count - 1)] = element
        count += 1
    }

    mutating func append(contentsOf elements: [Element]) {
        if count + elements.count > slots.count { grow(toHold: count + elements.count) }
        for element in elements { append(element) }
    }

    /// The oldest element, without taking it.
    var first: Element? { isEmpty ? nil : slots[head] }

    /// Takes the oldest element.
    mutating func removeFirst() {
        guard !isEmpty else { return }
        slots[head] = nil
        head = (head + 1) & (slots.count - 1)
        count -= 1
    }

    /// Empties the queue and returns what it held, oldest first.
    mutating func removeAll() -> [Element] {
        let held = (0..<count).map { slots[(head + $0) & (slots.count - 1)]! }
        slots = Array(repeating: nil, count: 16)
        head = 0
        count = 0
        return held
    }

    /// Moves the elements, oldest first, into storage of the next power of two that holds `wanted`.
    private mutating func grow(toHold wanted: Int) {
        var capacity = slots.count
        while capacity < wanted { capacity *= 2 }
        var grown = [Element?](repeating: nil, count: capacity)
        for offset in 0..<count { grown[offset] = slots[(head + offset) & (slots.count - 1)] }
        slots = grown
        head = 0
    }
}
