/// A partition of an intents topic, as the claims see it: the unit of the recorded watermark, the
/// offset below which every message's outputs are known to be in Kafka (docs/pipeline-stores.md).
struct SourcePartition: Hashable, Sendable {
    var topic: String
    var partition: Int32

    /// `pushline:recorded:<topic>:<partition>` → the recorded watermark. Kafka topic names hold no `:`.
    var recordedKey: String { "pushline:recorded:" + topic + ":" + String(partition) }

    /// The distinct partitions of `sources`, in order of appearance, and each source's index among them.
    static func distinct(_ sources: some Sequence<SourcePosition>) -> (partitions: [SourcePartition], indices: [Int]) {
        var partitions: [SourcePartition] = []
        var indices: [Int] = []
        var last: (partition: SourcePartition, index: Int)?
        for source in sources {
            if let last, last.partition.partition == source.partition, last.partition.topic == source.topic {
                indices.append(last.index)
                continue
            }
            let partition = source.topicPartition
            let index = partitions.firstIndex(of: partition) ?? {
                partitions.append(partition)
                return partitions.count - 1
            }()
            last = (partition, index)
            indices.append(index)
        }
        return (partitions, indices)
    }
}
