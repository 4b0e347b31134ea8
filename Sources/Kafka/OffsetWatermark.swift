/// Where a partition's consumer offset may be stored: the lowest offset whose work is not yet fully
/// recorded. Work on offsets can complete in any order; the watermark moves only over an unbroken
/// run of completed offsets, so a stored offset never passes unfinished work.
///
/// Offsets are tracked in the order the consumer receives them, which is increasing; gaps (compacted
/// records, transaction markers) are fine. Once everything tracked is complete, the watermark is one
/// past the last tracked offset, which is what Kafka expects as a committed offset ("next to read").
///
/// Pure Swift, no I/O; one per assigned partition, owned by ``KafkaConsumer``.
public struct OffsetWatermark: Sendable {
    /// Tracked offsets from `head` on, increasing, with whether each one's work is complete.
    private var offsets: [Int64] = []
    private var completed: [Bool] = []
    private var head = 0
    /// One past the last tracked offset.
    private var next: Int64?

    public init() {}

    /// The offset to store: the lowest tracked offset not yet complete, or one past the last tracked
    /// offset when all are complete. `nil` until something is tracked.
    public var watermark: Int64? {
        head < offsets.count ? offsets[head] : next
    }

    /// How many tracked offsets are not yet complete.
    public private(set) var inFlight = 0

    /// Records that `offset` was handed to the application. Returns `false`, and ignores it, when it
    /// is not above every offset tracked so far (a redelivery of something already passed).
    @discardableResult
    public mutating func track(_ offset: Int64) -> Bool {
        if let next, offset < next { return false }
        offsets.append(offset)
        completed.append(false)
        next = offset + 1
        inFlight += 1
        return true
    }

    /// Records that the work of `offset` is fully recorded. Returns whether the watermark moved.
    /// Completing an offset that is not tracked, or twice, changes nothing.
    @discardableResult
    public mutating func complete(_ offset: Int64) -> Bool {
        guard let index = indexOf(offset), !completed[index] else { return false }
        completed[index] = true
        inFlight -= 1
        guard index == head else { return false }
        while head < offsets.count, completed[head] { head += 1 }
        compactIfWorthwhile()
        return true
    }

    /// Binary search over the pending part (tracked offsets are increasing).
    private func indexOf(_ offset: Int64) -> Int? {
        var low = head
        var high = offsets.count
        while low < high {
            let middle = (low + high) / 2
            if offsets[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low < offsets.count && offsets[low] == offset ? low : nil
    }

    /// Drops the completed prefix once it is most of the storage, so memory follows what is in flight.
    private mutating func compactIfWorthwhile() {
        guard head >= 1024, head * 2 >= offsets.count else { return }
        offsets.removeFirst(head)
        completed.removeFirst(head)
        head = 0
    }
}
