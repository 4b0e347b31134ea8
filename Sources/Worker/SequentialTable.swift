/// Values keyed by integer ids that are handed out in increasing order and mostly removed in about
/// that order — the ``MessageLedger``'s messages and produced records — kept in an array from the
/// oldest id still held: a lookup is an index, not a hash (the ledger's dictionaries hashed an
/// integer five to seven times per delivery).
///
/// Ids removed out of order leave a hole until the ids before them go too; the array is compacted
/// as its front empties, so it holds about the span from the oldest id still present to the newest.
struct SequentialTable<Value> {
    private var slots: [Value?] = []
    /// Where the slot of ``first`` is in `slots`; the slots before it are spent.
    private var head = 0
    /// The id of `slots[head]`.
    private var first = 0
    /// How many values are held.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The value of `id`, if held.
    subscript(id: Int) -> Value? {
        guard id >= first, id - first < slots.count - head else { return nil }
        return slots[head + id - first]
    }

    /// The ids held, oldest first.
    var ids: [Int] {
        (head..<slots.count).filter { slots[$0] != nil }.map { first + $0 - head }
    }

    /// Holds `value` under `id`, replacing what was held there. Ids usually come in increasing
    /// order; an id before the oldest held still works (slots are added in front).
    mutating func set(_ value: Value, at id: Int) {
        if count == 0 {
            slots.removeAll(keepingCapacity: true)
            head = 0
            first = id
        } else if id < first {
            slots.insert(contentsOf: repeatElement(nil, count: first - id), at: head)
            first = id
        }
        let offset = id - first
        let end = slots.count - head
        if offset >= end {
            if offset > end { slots.append(contentsOf: repeatElement(nil, count: offset - end)) }
            slots.append(value)
            count += 1
        } else {
            if slots[head + offset] == nil { count += 1 }
            slots[head + offset] = value
        }
    }

    /// Takes the value of `id` out, if held.
    @discardableResult
    mutating func remove(_ id: Int) -> Value? {
        guard id >= first, id - first < slots.count - head else { return nil }
        let index = head + id - first
        // Moved out, not copied: a produced record's value is not retained and released on the way.
        guard let value = slots[index].take() else { return nil }
        count -= 1
        if index == head { dropSpentFront() }
        return value
    }

    /// Moves the front past the empty slots; gives the spent slots back once they are most of the array.
    private mutating func dropSpentFront() {
        while head < slots.count, slots[head] == nil {
            head += 1
            first += 1
        }
        if head == slots.count {
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= slots.count {
            slots.removeSubrange(0..<head)
            head = 0
        }
    }
}
