/// How far a partition's recorded work is behind its end, from librdkafka's statistics.
public struct KafkaPartitionLag: Sendable, Hashable {
    /// The partition's high watermark: the offset the next produced message will get.
    public let highWatermark: Int64
    /// Messages between the group's committed offset and the high watermark, when both are known.
    public let committed: Int64?
    /// Messages between the stored offset (the ``OffsetWatermark``) and the high watermark, when both
    /// are known: work that is not yet fully recorded.
    public let stored: Int64?

    public init(highWatermark: Int64, committed: Int64?, stored: Int64?) {
        self.highWatermark = highWatermark
        self.committed = committed
        self.stored = stored
    }
}
