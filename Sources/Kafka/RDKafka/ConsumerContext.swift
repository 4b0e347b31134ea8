internal import CRdKafka
import Runtime
import Synchronization

/// What a ``KafkaConsumer``'s C callbacks reach through librdkafka's single opaque pointer: the
/// per-partition watermarks and fetch queues, the lag from statistics, and the owner's event handler.
///
/// librdkafka calls the rebalance, statistics and error callbacks on the thread inside
/// `rd_kafka_consumer_poll` (or `rd_kafka_consumer_close`). No lock is held across those C calls:
/// the lock here guards short bookkeeping only, and every C call that can block or call back runs
/// after it is released.
final class ConsumerContext: Sendable {
    struct Partition {
        var watermark = OffsetWatermark()
        /// The assignment generation that created this entry.
        let assignedIn: UInt64
        /// The partition's own fetch queue, which the poll reads round robin with the others'; nil
        /// when librdkafka gave none (its messages then reach the consumer queue, as by default).
        var queue: RDKafkaConsumerQueue?
        /// Set while the owner holds the partition (``KafkaConsumer/hold(_:)``): the poll does not
        /// read its queue. A new assignment of the partition starts unheld.
        var held = false
    }

    struct State {
        var partitions: [KafkaTopicPartition: Partition] = [:]
        var lag: [KafkaTopicPartition: KafkaPartitionLag] = [:]
        /// Whether any assignment has arrived since the consumer subscribed.
        var assignedOnce = false
        /// Brokers connected, from the latest statistics.
        var brokersUp: Int?
        /// The consumer queue, held for its arrival events until the consumer closes.
        var consumerQueue: RDKafkaConsumerQueue?

        typealias Entry = Dictionary<KafkaTopicPartition, Partition>.Index

        /// The entry of `partition`, reusing `last` while consecutive messages share a partition (the
        /// usual case in a batch) to save hashing the topic for each message.
        func entry(of partition: KafkaTopicPartition, last: inout (partition: KafkaTopicPartition, entry: Entry)?) -> Entry? {
            if let last, last.partition == partition { return last.entry }
            guard let entry = partitions.index(forKey: partition) else { return nil }
            last = (partition, entry)
            return entry
        }
    }

    let state = Mutex(State())
    /// Whether the configured assignor rebalances cooperatively (incremental assign and unassign).
    /// Known from the configuration: asking librdkafka (`rd_kafka_rebalance_protocol`) from the
    /// callback can return NULL, or hang, while the consumer closes (librdkafka #4041).
    let cooperative: Bool
    /// Bumped by every assignment change, so a batch can tell that a rebalance ran while it was being
    /// collected. Read without the lock on the hot path.
    let generation = Atomic<UInt64>(0)
    let eventHandler: @Sendable (KafkaConsumerEvent) -> Void
    /// Signalled by librdkafka when the consumer queue or a partition's queue gets something while
    /// empty: what a poll with nothing ready waits on.
    let arrivals = Semaphore()

    init(cooperative: Bool, eventHandler: @escaping @Sendable (KafkaConsumerEvent) -> Void) {
        self.cooperative = cooperative
        self.eventHandler = eventHandler
    }

    /// Installs the callbacks on a configuration whose opaque is this context.
    func install(on conf: OpaquePointer) {
        rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
        rd_kafka_conf_set_stats_cb(conf, statisticsCallback)
        rd_kafka_conf_set_error_cb(conf, errorCallback)
    }

    /// Holds the consumer queue (``RDKafkaConsumerQueue``) for its arrival events.
    func holdConsumerQueue(of client: OpaquePointer) {
        let queue = RDKafkaConsumerQueue(consumerQueueOf: client, arrivals: arrivals)
        state.withLock { $0.consumerQueue = queue }
    }

    /// The fetch queues of the assigned partitions not held, for one poll: those of `first`, and
    /// the others.
    func partitionQueues(first: Set<KafkaTopicPartition>) -> (first: [RDKafkaConsumerQueue], others: [RDKafkaConsumerQueue]) {
        state.withLock { state in
            var queues: (first: [RDKafkaConsumerQueue], others: [RDKafkaConsumerQueue]) = ([], [])
            for (partition, entry) in state.partitions where !entry.held {
                guard let queue = entry.queue else { continue }
                if !first.isEmpty && first.contains(partition) {
                    queues.first.append(queue)
                } else {
                    queues.others.append(queue)
                }
            }
            return queues
        }
    }

    /// Holds or releases those of `partitions` that are assigned; returns those whose hold changed
    /// and that have no queue of their own (their messages come through the consumer queue, which
    /// cannot be held per partition: the caller pauses or resumes them, and resumes only those it
    /// paused — librdkafka before 2.4.0 restarts a partition not paused at an older position).
    func setHeld(_ held: Bool, _ partitions: [KafkaTopicPartition]) -> [KafkaTopicPartition] {
        let withoutQueue = state.withLock { state in
            partitions.filter { partition in
                guard let entry = state.partitions[partition], entry.held != held else { return false }
                state.partitions[partition]?.held = held
                return entry.queue == nil
            }
        }
        // A poll waiting for arrivals looks at the released queues again: they may hold messages
        // already, and a queue that is not empty signals no arrival.
        if !held { arrivals.signal() }
        return withoutQueue
    }

    /// Releases every queue reference, as librdkafka requires before the consumer closes or the
    /// client is destroyed. The references are dropped after the lock.
    func releaseQueues() {
        _ = state.withLock { state in
            var released = state.partitions.values.compactMap(\.queue)
            for key in state.partitions.keys { state.partitions[key]?.queue = nil }
            if let queue = state.consumerQueue { released.append(queue) }
            state.consumerQueue = nil
            return released
        }
    }

    /// Tracks `batch[start...]`, collected while `generation` was current, in the watermarks, and
    /// drops the messages of partitions that a rebalance has since taken away or handed out anew
    /// (their new owner, or this consumer's new assignment, receives them again).
    func track(_ batch: inout [KafkaConsumerMessage], from start: Int, collectedIn generation: UInt64) {
        guard start < batch.count else { return }
        state.withLock { state in
            var kept = start
            var last: (partition: KafkaTopicPartition, entry: State.Entry)?
            for index in start..<batch.count {
                let message = batch[index]
                guard let entry = state.entry(of: message.topicPartition, last: &last),
                      state.partitions.values[entry].assignedIn <= generation,
                      state.partitions.values[entry].watermark.track(message.offset)
                else { continue }
                batch[kept] = message
                kept += 1
            }
            batch.removeSubrange(kept...)
        }
    }

    /// Marks the messages' work as recorded and stores the offsets of the watermarks that moved.
    /// `rd_kafka_offsets_store` neither blocks nor calls back, so it runs under the lock: stores then
    /// happen in watermark order and a stored offset never moves backwards.
    /// Returns the watermarks that moved.
    func complete(_ messages: [KafkaConsumerMessage], client: OpaquePointer) -> [KafkaTopicPartition: Int64] {
        state.withLock { state in
            var last: (partition: KafkaTopicPartition, entry: State.Entry)?
            var moved: [State.Entry] = []
            for message in messages {
                guard let entry = state.entry(of: message.topicPartition, last: &last),
                      state.partitions.values[entry].watermark.complete(message.offset)
                else { continue }
                if moved.last != entry && !moved.contains(entry) { moved.append(entry) }
            }
            guard !moved.isEmpty else { return [:] }
            let offsets = Dictionary(uniqueKeysWithValues: moved.map { entry in
                (state.partitions.keys[entry], state.partitions.values[entry].watermark.watermark!)
            })
            // A partition revoked meanwhile fails with _STATE; its new owner starts from the commit.
            _ = RDKafkaTopicPartitionList(offsets: offsets).withPointer { rd_kafka_offsets_store(client, $0) }
            return offsets
        }
    }

    fileprivate func rebalance(_ client: OpaquePointer, _ reason: rd_kafka_resp_err_t,
                               _ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?) {
        let partitions = RDKafkaTopicPartitionList.entries(of: list).map(\.0)
        switch reason {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            let generation = generation.add(1, ordering: .sequentiallyConsistent).newValue
            // A queue has one arrival callback, which releasing a reference switches off: the
            // references of an earlier assignment of these partitions go first (returned, so that
            // they are released after the lock).
            _ = state.withLock { state in
                var released: [RDKafkaConsumerQueue] = []
                for partition in partitions {
                    if let queue = state.partitions[partition]?.queue { released.append(queue) }
                    state.partitions[partition]?.queue = nil
                }
                return released
            }
            // Each partition's own queue before the assignment starts fetching it, so its messages
            // never join the consumer queue (docs/kafka.md, "Each partition its own queue").
            let queues = partitions.map { RDKafkaConsumerQueue(partition: $0, of: client, arrivals: arrivals) }
            state.withLock { state in
                for (partition, queue) in zip(partitions, queues) {
                    state.partitions[partition] = Partition(assignedIn: generation, queue: queue)
                }
                state.assignedOnce = true
            }
            // librdkafka keeps a partition's pause across a revoke and a later assignment of it
            // (librdkafka #1849): a partition paused, moved to another member and back would never
            // be fetched again. A new assignment starts fetching; the owner holds it if it must.
            // Resumed before the assignment, never after: a resume takes a new version of the
            // partition's operations even when nothing is paused, and the assignment starts the
            // fetch on librdkafka's main thread once the committed offset is known; a resume that
            // took its version after the fetch start's and queued before it would make librdkafka
            // drop the fetch start as outdated (rd_kafka_toppar_op_serve, 2.0.2): the partition
            // stays assigned and is never fetched. Before the assignment, the resume (which waits
            // until it is served) is always the older operation.
            if let list { _ = rd_kafka_resume_partitions(client, list) }
            changeAssignment(client, list, adding: true)
            eventHandler(.assigned(partitions))
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let lost = rd_kafka_assignment_lost(client) != 0
            eventHandler(lost ? .lost(partitions) : .revoked(partitions))
            // (The queues are returned so that they are released after the lock.)
            let (watermarks, _) = state.withLock { state in
                var watermarks: [KafkaTopicPartition: Int64] = [:]
                var queues: [RDKafkaConsumerQueue] = []
                for partition in partitions {
                    let removed = state.partitions.removeValue(forKey: partition)
                    watermarks[partition] = removed?.watermark.watermark
                    if let queue = removed?.queue { queues.append(queue) }
                    state.lag[partition] = nil
                }
                return (watermarks, queues)
            }
            generation.add(1, ordering: .sequentiallyConsistent)
            if !lost && !watermarks.isEmpty {
                let result = RDKafkaTopicPartitionList(offsets: watermarks).withPointer { rd_kafka_commit(client, $0, 0) }
                if result != RD_KAFKA_RESP_ERR_NO_ERROR && result != RD_KAFKA_RESP_ERR__NO_OFFSET {
                    eventHandler(.error(KafkaError(result, "commit on revoke of \(watermarks.keys.sorted { $0.description < $1.description })")))
                }
            }
            changeAssignment(client, list, adding: false)
        default:
            eventHandler(.error(KafkaError(reason, "rebalance failed")))
            changeAssignment(client, nil, adding: false, cooperative: false)
        }
    }

    /// Adds or removes `list` with the group's protocol: incrementally for cooperative assignment,
    /// as a whole for the eager protocols (a `nil` list there releases everything).
    private func changeAssignment(_ client: OpaquePointer, _ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
                                  adding: Bool, cooperative: Bool? = nil) {
        let what = adding ? "assign" : "unassign"
        let error: KafkaError?
        if cooperative ?? self.cooperative {
            let result = adding ? rd_kafka_incremental_assign(client, list) : rd_kafka_incremental_unassign(client, list)
            error = result.map { KafkaError(taking: $0, what) }
        } else {
            let result = rd_kafka_assign(client, adding ? list : nil)
            error = result == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(result, what)
        }
        if let error { eventHandler(.error(error)) }
    }

    fileprivate func statistics(_ json: UnsafeRawBufferPointer) {
        guard let statistics = ConsumerStatistics.decode(json) else { return }
        let lag = statistics.lag
        let brokersUp = statistics.brokersUp
        state.withLock { state in
            state.lag = lag.filter { state.partitions[$0.key] != nil }
            state.brokersUp = brokersUp ?? state.brokersUp
        }
    }
}

private func rebalanceCallback(_ client: OpaquePointer?, _ reason: rd_kafka_resp_err_t,
                               _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
                               _ opaque: UnsafeMutableRawPointer?) {
    guard let client, let opaque else { return }
    Unmanaged<ConsumerContext>.fromOpaque(opaque).takeUnretainedValue().rebalance(client, reason, partitions)
}

/// Returns 0 so that librdkafka frees the JSON.
private func statisticsCallback(_ client: OpaquePointer?, _ json: UnsafeMutablePointer<CChar>?, _ length: Int,
                                _ opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let json, let opaque else { return 0 }
    Unmanaged<ConsumerContext>.fromOpaque(opaque).takeUnretainedValue()
        .statistics(UnsafeRawBufferPointer(start: json, count: length))
    return 0
}

private func errorCallback(_ client: OpaquePointer?, _ code: Int32, _ reason: UnsafePointer<CChar>?,
                           _ opaque: UnsafeMutableRawPointer?) {
    guard let opaque else { return }
    let error = KafkaError(code: KafkaError.Code(rawValue: code), reason: reason.map { String(cString: $0) } ?? "",
                           isFatal: code == KafkaError.Code.fatal.rawValue)
    Unmanaged<ConsumerContext>.fromOpaque(opaque).takeUnretainedValue().eventHandler(.error(error))
}
