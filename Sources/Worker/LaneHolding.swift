import Kafka

/// Which partitions the worker holds because a priority lane is full: it stops taking their
/// messages (``KafkaConsumer/hold(_:)``), so that a full lane's backlog cannot stand between the
/// worker and another lane's intents (docs/policies.md, "A full lane holds its partitions").
///
/// A lane is full when it queues `highWater` deliveries. A partition that brings a delivery to a
/// full lane is held; the lane's partitions are released together once it queues fewer than
/// `lowWater`. Holding a partition only stops the poll from reading its queue: librdkafka keeps
/// what it fetched and keeps fetching up to its prefetch bounds, so releasing it costs no fetch
/// again, no message is skipped or read twice, and the ``MessageLedger`` sees each once.
///
/// Pure bookkeeping: the ``WorkerLoop/StateMachine`` turns what it returns into actions.
struct LaneHolding {
    let highWater: Int
    let lowWater: Int
    /// The partitions each lane holds, by lane index.
    private var heldBy: [Set<KafkaTopicPartition>]
    /// Partitions that brought deliveries to each full lane since the last ``update(queued:)``.
    private var feeding: [Set<KafkaTopicPartition>]

    /// - Parameters:
    ///   - lanes: how many lanes the pipeline has; with fewer than two, nothing is ever held.
    ///   - highWater: deliveries queued in one lane that make it full (at least 1).
    init(lanes: Int, highWater: Int) {
        self.highWater = lanes > 1 ? max(1, highWater) : .max
        lowWater = self.highWater / 2
        heldBy = Array(repeating: [], count: lanes)
        feeding = heldBy
    }

    /// Whether any partition is held for a lane.
    var isHolding: Bool { heldBy.contains { !$0.isEmpty } }

    /// Every partition held for a lane.
    var held: Set<KafkaTopicPartition> { heldBy.reduce(into: []) { $0.formUnion($1) } }

    /// Whether deliveries joining `lane`, which now queues `queued`, are to be noted with
    /// ``fed(lane:from:)``: only while the lane is full.
    func isFull(_ queued: Int) -> Bool { queued >= highWater }

    /// Deliveries of `partitions` joined `lane` while it was full (``isFull(_:)``).
    mutating func fed(lane: Int, from partitions: some Sequence<KafkaTopicPartition>) {
        // Consecutive deliveries mostly share a partition: compare before hashing.
        var last: KafkaTopicPartition?
        for partition in partitions where partition != last {
            feeding[lane].insert(partition)
            last = partition
        }
    }

    /// What changes now that the lanes queue `queued(lane)`: per lane, the partitions to hold
    /// (those that fed it while full and are not yet held for it) and those to release (the
    /// partitions of a lane that drained below `lowWater`, unless another lane still holds them).
    mutating func update(queued: (Int) -> Int) -> (hold: [(lane: Int, partitions: Set<KafkaTopicPartition>)],
                                                   release: [(lane: Int, partitions: Set<KafkaTopicPartition>)]) {
        var hold: [(lane: Int, partitions: Set<KafkaTopicPartition>)] = []
        var release: [(lane: Int, partitions: Set<KafkaTopicPartition>)] = []
        for lane in heldBy.indices {
            let newly = feeding[lane].subtracting(heldBy[lane])
            feeding[lane] = []
            if !newly.isEmpty {
                heldBy[lane].formUnion(newly)
                hold.append((lane, newly))
            } else if !heldBy[lane].isEmpty && queued(lane) < lowWater {
                let released = heldBy[lane]
                heldBy[lane] = []
                let freed = released.subtracting(held)
                if !freed.isEmpty { release.append((lane, freed)) }
            }
        }
        return (hold, release)
    }

    /// Forgets these partitions (assigned anew, so not held in the consumer, or handed back).
    mutating func forget(_ partitions: Set<KafkaTopicPartition>) {
        for lane in heldBy.indices {
            heldBy[lane].subtract(partitions)
            feeding[lane].subtract(partitions)
        }
    }
}
