/// Which records of a topic a report, an export or a replay takes: a time range, an offset range,
/// some partitions, or all of these together. Nothing set: every record the topic retains, up to the
/// end each partition had when reading started.
public struct RecordRange: Sendable, Equatable {
    /// Records whose own time (an outcome's `completed_at`, a dead letter's `recorded_at`) is at or
    /// after this, Unix milliseconds.
    public var since: Int64?
    /// Records whose own time is before this, Unix milliseconds.
    public var until: Int64?
    /// The first offset read in each partition.
    public var startOffset: Int64?
    /// The offset where reading stops in each partition (not read).
    public var endOffset: Int64?
    /// Only these partitions; nil: every partition of the topic.
    public var partitions: Set<Int32>?

    /// How much earlier than ``since`` reading starts when Kafka finds the first offset by time:
    /// Kafka's record timestamps are when the worker produced the record, a little after the time it
    /// carries, and several workers write to one partition, so its timestamps are not quite in order.
    public static let timestampSlack: Int64 = 300_000

    public init(since: Int64? = nil, until: Int64? = nil, startOffset: Int64? = nil, endOffset: Int64? = nil,
                partitions: Set<Int32>? = nil) {
        self.since = since
        self.until = until
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.partitions = partitions
    }

    /// Whether a record with this time is in the range; a record without one is in every time range.
    public func contains(time: Int64?) -> Bool {
        guard let time else { return true }
        if let since, time < since { return false }
        if let until, time >= until { return false }
        return true
    }
}
