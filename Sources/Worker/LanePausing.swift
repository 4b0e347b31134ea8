import Kafka

/// Which partitions are paused because a priority lane is full, so that librdkafka's prefetched
/// backlog of a full lane cannot stand between the worker and another lane's intents
/// (docs/policies.md, "A lane full pauses its partitions").
///
/// A lane is full when it queues `highWater` deliveries. A partition that brings a delivery to a
/// full lane is paused; the lane's partitions are resumed together once it queues fewer than
/// `lowWater`. Pausing a partition makes librdkafka drop what it prefetched of it and fetch again,
/// on resume, from the last message the worker polled (`rd_kafka_pause_partitions` bumps the
/// partition's version barrier, so older fetched messages are discarded at poll, and sets the
/// next fetch offset to the application's position — rdkafka_partition.c, librdkafka 2.0.2): no
/// message is skipped or read twice, and the ``MessageLedger`` sees each once.
///
/// Pure bookkeeping: the ``WorkerLoop/StateMachine`` turns what it returns into actions.
struct LanePausing {
    let highWater: Int
    let lowWater: Int
    /// The partitions each lane paused, by lane index.
    private var pausedBy: [Set<KafkaTopicPartition>]
    /// Partitions that brought deliveries to each full lane since the last ``update(queued:)``.
    private var feeding: [Set<KafkaTopicPartition>]

    /// - Parameters:
    ///   - lanes: how many lanes the pipeline has; with fewer than two, nothing is ever paused.
    ///   - highWater: deliveries queued in one lane that make it full (at least 1).
    init(lanes: Int, highWater: Int) {
        self.highWater = lanes > 1 ? max(1, highWater) : .max
        lowWater = self.highWater / 2
        pausedBy = Array(repeating: [], count: lanes)
        feeding = pausedBy
    }

    /// Whether any partition is paused for a lane.
    var isPausing: Bool { pausedBy.contains { !$0.isEmpty } }

    /// Every partition paused for a lane.
    var paused: Set<KafkaTopicPartition> { pausedBy.reduce(into: []) { $0.formUnion($1) } }

    /// Deliveries of `partitions` joined `lane`, which now queues `queued`.
    mutating func fed(lane: Int, queued: Int, from partitions: some Sequence<KafkaTopicPartition>) {
        guard queued >= highWater else { return }
        feeding[lane].formUnion(partitions)
    }

    /// What changes now that the lanes queue `queued(lane)`: per lane, the partitions to pause
    /// (those that fed it while full and are not yet paused for it) and those to resume (the
    /// partitions of a lane that drained below `lowWater`, unless another lane still holds them).
    mutating func update(queued: (Int) -> Int) -> (pause: [(lane: Int, partitions: Set<KafkaTopicPartition>)],
                                                   resume: [(lane: Int, partitions: Set<KafkaTopicPartition>)]) {
        var pause: [(lane: Int, partitions: Set<KafkaTopicPartition>)] = []
        var resume: [(lane: Int, partitions: Set<KafkaTopicPartition>)] = []
        for lane in pausedBy.indices {
            let newly = feeding[lane].subtracting(pausedBy[lane])
            feeding[lane] = []
            if !newly.isEmpty {
                pausedBy[lane].formUnion(newly)
                pause.append((lane, newly))
            } else if !pausedBy[lane].isEmpty && queued(lane) < lowWater {
                let released = pausedBy[lane]
                pausedBy[lane] = []
                let held = paused
                let freed = released.subtracting(held)
                if !freed.isEmpty { resume.append((lane, freed)) }
            }
        }
        return (pause, resume)
    }

    /// Forgets these partitions (assigned anew, so not paused in the consumer, or handed back).
    mutating func forget(_ partitions: Set<KafkaTopicPartition>) {
        for lane in pausedBy.indices {
            pausedBy[lane].subtract(partitions)
            feeding[lane].subtract(partitions)
        }
    }
}
