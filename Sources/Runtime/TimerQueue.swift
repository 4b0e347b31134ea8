/// Timers of one event loop: a binary min-heap ordered by deadline, then by insertion, so timers
/// with the same deadline fire in the order they were scheduled.
struct TimerQueue {
    struct Entry {
        let deadline: UInt64
        let sequence: UInt64
        let id: UInt64
        let action: () -> Void
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var earliestDeadline: UInt64? { heap.first?.deadline }

    mutating func insert(deadline: UInt64, id: UInt64, action: @escaping () -> Void) {
        heap.append(Entry(deadline: deadline, sequence: nextSequence, id: id, action: action))
        nextSequence += 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    mutating func popDue(now: UInt64) -> Entry? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        (heap[a].deadline, heap[a].sequence) < (heap[b].deadline, heap[b].sequence)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, precedes(left, smallest) { smallest = left }
            if right < heap.count, precedes(right, smallest) { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
