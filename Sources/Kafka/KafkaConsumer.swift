internal import CRdKafka
import Synchronization
import Runtime

/// A member of a Kafka consumer group that hands out messages in batches and stores each
/// partition's offset only at its ``OffsetWatermark``: the lowest offset whose work is not yet fully
/// recorded, however out of order work completes.
///
/// Offsets are committed by librdkafka's auto-commit, explicitly for each partition on revoke, and
/// on ``close(timeout:)``. A consumer dropped without closing behaves like a crash: it commits
/// nothing more and its group reassigns its partitions after the session timeout, from the last
/// committed offset.
///
/// ``poll(maxMessages:timeout:first:)``, ``commit()``, ``committedOffsets(for:timeout:)`` and
/// ``close(timeout:)`` block, and so does dropping the last reference (librdkafka joins its
/// threads): do these on a dedicated thread, never on Swift's cooperative pool, and poll from one
/// thread only.
/// ``complete(_:)``, ``pause(_:)``, ``resume(_:)``, ``hold(_:)`` and ``release(_:)`` do not block and may be called from any thread.
public final class KafkaConsumer: Sendable {
    private let context: ConsumerContext
    private let client: RDKafkaClient
    private let closed = Atomic<Bool>(false)
    private let subscribed: Bool
    /// A static member (`group.instance.id`) keeps its place in the group when it closes (KIP-345).
    private let staticMember: Bool
    /// Where in the partitions' queues the next poll starts.
    private let rotation = Atomic<Int>(0)

    /// Creates the consumer and subscribes to the configuration's topics; partitions arrive through
    /// polling, announced to `eventHandler` as ``KafkaConsumerEvent/assigned(_:)``. With no topics
    /// the consumer joins no group; it can still read the group's ``committedOffsets(for:timeout:)``.
    /// - Parameter eventHandler: called on the polling thread during ``poll(maxMessages:timeout:first:)``
    ///   and ``close(timeout:)``; it must not call those two itself.
    public init(configuration: KafkaConsumerConfiguration,
                eventHandler: @escaping @Sendable (KafkaConsumerEvent) -> Void = { _ in }) throws(KafkaError) {
        let properties = try configuration.properties()
        // librdkafka requires every configured assignor to share one protocol.
        let cooperative = properties["partition.assignment.strategy"]?.contains("cooperative") == true
        let context = ConsumerContext(cooperative: cooperative, eventHandler: eventHandler)
        self.context = context
        client = try RDKafkaClient(type: RD_KAFKA_CONSUMER, properties: properties, callbackContext: context,
                                   destroyFlags: RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE) { conf in
            context.install(on: conf)
        }
        // Rebalance, statistics and error callbacks are served by rd_kafka_consumer_poll.
        rd_kafka_poll_set_consumer(client.handle)
        context.holdConsumerQueue(of: client.handle)
        // No topics: a client that joins no group, for reading committed offsets.
        subscribed = !configuration.topics.isEmpty
        staticMember = configuration.groupInstanceID != nil
        guard subscribed else { return }
        // librdkafka's RD_KAFKA_PARTITION_UA (-1): the partition is not part of a subscription.
        let topics = RDKafkaTopicPartitionList(configuration.topics.map { KafkaTopicPartition(topic: $0, partition: -1) })
        let result = topics.withPointer { rd_kafka_subscribe(client.handle, $0) }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(result, "cannot subscribe to \(configuration.topics.joined(separator: ", "))")
        }
    }

    /// Waits up to `timeout` for a first message, then takes whatever else is ready, up to
    /// `maxMessages`. Every returned message is tracked in its partition's watermark until
    /// ``complete(_:)``. Returns an empty batch on timeout and after ``close(timeout:)``. Blocking.
    ///
    /// Each assigned partition has its own fetch queue (``RDKafkaConsumerQueue``), and a poll takes
    /// from them round robin, an equal share each: what librdkafka prefetched of one partition
    /// never stands in front of another partition's messages, and one partition's full prefetch
    /// does not hold back the fetching of the others (librdkafka counts its `queued.min.messages`
    /// per fetch queue, which is the shared consumer queue when partitions forward to it).
    /// - Parameter first: partitions whose queues are taken before the others' (round robin among
    ///   themselves), so that a poll with little room gives it to them.
    public func poll(maxMessages: Int, timeout: Duration, first: Set<KafkaTopicPartition> = []) -> [KafkaConsumerMessage] {
        guard !closed.load(ordering: .acquiring) else { return [] }
        var collector = PollCollector(maxMessages: maxMessages, generation: context.generation)
        let deadline = Deadline(after: timeout)
        while true {
            // Stale wake-ups: whatever arrives from here on signals again.
            while context.arrivals.tryWait() {}
            serveConsumerQueue(&collector)
            takeFromPartitionQueues(&collector, first: first, others: true)
            if !collector.batch.isEmpty || collector.isFull || deadline.hasPassed { break }
            _ = context.arrivals.wait(milliseconds: max(1, Int(deadline.remainingMilliseconds)))
        }
        context.track(&collector.batch, from: collector.segmentStart, collectedIn: collector.generation)
        return collector.batch
    }

    /// Takes what the queues of `partitions` hold now, up to `maxMessages`, without waiting; a
    /// partition held, not assigned or without a queue of its own gives nothing. Unlike
    /// ``poll(maxMessages:timeout:first:)`` it serves no consumer queue, so no rebalance or other
    /// callback runs inside it. Returned messages are tracked as a poll's. Empty after
    /// ``close(timeout:)``. Call it from the polling thread.
    public func take(from partitions: Set<KafkaTopicPartition>, maxMessages: Int) -> [KafkaConsumerMessage] {
        guard !closed.load(ordering: .acquiring), !partitions.isEmpty else { return [] }
        var collector = PollCollector(maxMessages: maxMessages, generation: context.generation)
        takeFromPartitionQueues(&collector, first: partitions, others: false)
        context.track(&collector.batch, from: 0, collectedIn: collector.generation)
        return collector.batch
    }

    /// What one ``poll(maxMessages:timeout:first:)`` or ``take(from:maxMessages:)`` has collected,
    /// and the assignment generation of the messages since the last rebalance.
    private struct PollCollector {
        let maxMessages: Int
        var batch: [KafkaConsumerMessage] = []
        var segmentStart = 0
        var generation: UInt64
        var topicNames = TopicNames()

        /// Starts collecting in the consumer's current assignment generation.
        init(maxMessages: Int, generation: borrowing Atomic<UInt64>) {
            self.maxMessages = maxMessages
            self.generation = generation.load(ordering: .sequentiallyConsistent)
            batch.reserveCapacity(maxMessages)
        }

        var isFull: Bool { batch.count >= maxMessages }
        var room: Int { max(0, maxMessages - batch.count) }
    }

    /// Serves the consumer queue without waiting: rebalances, errors and statistics run their
    /// callbacks here; messages of partitions without a queue of their own are collected.
    private func serveConsumerQueue(_ collector: inout PollCollector) {
        while true {
            let message = rd_kafka_consumer_poll(client.handle, 0)
            let current = context.generation.load(ordering: .sequentiallyConsistent)
            if current != collector.generation {
                // A rebalance ran inside that poll: settle what was collected before it.
                context.track(&collector.batch, from: collector.segmentStart, collectedIn: collector.generation)
                collector.segmentStart = collector.batch.count
                collector.generation = current
            }
            guard let message else { return }
            collect(message, into: &collector)
            if collector.isFull { return }
        }
    }

    /// Takes from the partitions' queues: those of `first`, then (with `others`) the rest, each
    /// group round robin, starting each poll at the next partition.
    private func takeFromPartitionQueues(_ collector: inout PollCollector, first: Set<KafkaTopicPartition>, others: Bool) {
        guard !collector.isFull else { return }
        let queues = context.partitionQueues(first: first)
        let start = rotation.add(1, ordering: .relaxed).oldValue
        takeRoundRobin(queues.first, startingAt: start, &collector)
        if others { takeRoundRobin(queues.others, startingAt: start, &collector) }
    }

    /// Takes from these queues round robin, each an equal share of the room left in a round,
    /// starting at `start` (modulo their count), until the batch is full or they are empty.
    private func takeRoundRobin(_ queues: [RDKafkaConsumerQueue], startingAt start: Int, _ collector: inout PollCollector) {
        guard !queues.isEmpty, !collector.isFull else { return }
        let start = start % queues.count
        var queues = Array(queues[start...] + queues[..<start])
        let buffer = UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>.allocate(capacity: collector.maxMessages)
        defer { buffer.deallocate() }
        while !queues.isEmpty && !collector.isFull {
            let share = max(1, collector.room / queues.count)
            queues = queues.filter { queue in
                let wanted = min(share, collector.room)
                guard wanted > 0 else { return true }
                let taken = max(0, rd_kafka_consume_batch_queue(queue.pointer, 0, buffer, wanted))
                for index in 0..<taken {
                    if let message = buffer[index] { collect(message, into: &collector) }
                }
                // A queue that gave less than asked is empty for now.
                return taken == wanted
            }
        }
    }

    /// Adds a consumed message to the batch (an error is reported instead, but for the end of a
    /// partition) and destroys it: consumed messages are ours to destroy.
    private func collect(_ message: UnsafeMutablePointer<rd_kafka_message_t>, into collector: inout PollCollector) {
        defer { rd_kafka_message_destroy(message) }
        let topic = collector.topicNames.name(of: message.pointee.rkt)
        guard message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            if message.pointee.err != RD_KAFKA_RESP_ERR__PARTITION_EOF {
                let place = KafkaTopicPartition(topic: topic, partition: message.pointee.partition)
                context.eventHandler(.error(KafkaError(message.pointee.err, "consume", topicPartition: place)))
            }
            return
        }
        collector.batch.append(KafkaConsumerMessage(copying: message, topic: topic))
    }

    /// Records that these messages' work is fully recorded. Each partition's watermark moves over the
    /// unbroken run of completed offsets, and the new watermark is stored for the next commit.
    /// Messages of partitions no longer assigned are ignored. Does not block. Returns the watermarks
    /// that moved (the offsets now stored), by partition.
    @discardableResult
    public func complete(_ messages: [KafkaConsumerMessage]) -> [KafkaTopicPartition: Int64] {
        context.complete(messages, client: client.handle)
    }

    /// Commits the stored offsets now and waits for the group coordinator's answer. Blocking.
    public func commit() throws(KafkaError) {
        if let failure = commitStoredOffsets("commit") { throw failure }
    }

    /// Commits the stored offsets synchronously; nothing stored is not a failure.
    private func commitStoredOffsets(_ what: String) -> KafkaError? {
        let result = rd_kafka_commit(client.handle, nil, 0)
        return result == RD_KAFKA_RESP_ERR_NO_ERROR || result == RD_KAFKA_RESP_ERR__NO_OFFSET ? nil : KafkaError(result, what)
    }

    /// The group's committed offsets for these partitions, as the coordinator has them; partitions
    /// without a committed offset are absent. Blocking, up to `timeout`.
    public func committedOffsets(for partitions: [KafkaTopicPartition],
                                 timeout: Duration) throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let list = RDKafkaTopicPartitionList(partitions)
        let result = list.withPointer { rd_kafka_committed(client.handle, $0, timeout.timeoutMilliseconds) }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, "read committed offsets") }
        var offsets: [KafkaTopicPartition: Int64] = [:]
        for (partition, offset, error) in list.entries where error == RD_KAFKA_RESP_ERR_NO_ERROR && offset >= 0 {
            offsets[partition] = offset
        }
        return offsets
    }

    /// Stops fetching these partitions (backpressure) while the consumer keeps polling, so it stays
    /// in its group. Does not block. What librdkafka already fetched of them and the application
    /// has not polled is dropped (the pause bumps the partition's version barrier; older messages
    /// are discarded at poll), and fetching resumes from the last message polled + 1
    /// (rdkafka_partition.c, librdkafka 2.0.2): nothing is skipped, nothing polled twice. A pause
    /// in the moment a new assignment starts the partition's fetch can make librdkafka 2.0.2 drop
    /// that start (docs/kafka.md, "Assigned"), which no resume restarts: right after an assignment,
    /// ``hold(_:)`` a partition instead (the worker does).
    public func pause(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try changeFetching(partitions, resume: false)
    }

    /// Fetches these paused partitions again, from where they stopped. Does not block. Like
    /// ``pause(_:)``, not in the moment a new assignment starts their fetch (docs/kafka.md, "Assigned").
    public func resume(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try changeFetching(partitions, resume: true)
    }

    /// Stops taking these partitions' messages: ``poll(maxMessages:timeout:first:)`` leaves their queues
    /// unread until ``release(_:)``, while librdkafka keeps fetching them up to its prefetch bounds
    /// (`queued.min.messages`, `queued.max.messages.kbytes`, counted per partition's queue), which
    /// is the back-pressure. Unlike ``pause(_:)`` nothing fetched is dropped, so releasing costs no
    /// fetch again: the poll goes on from the next message in the queue. A partition librdkafka gave
    /// no queue of its own (its messages come through the consumer queue) is paused instead.
    /// Partitions not assigned are ignored; a hold ends with the assignment (a partition assigned
    /// anew is not held). Does not block.
    public func hold(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        let withoutQueue = context.setHeld(true, partitions)
        if !withoutQueue.isEmpty { try changeFetching(withoutQueue, resume: false) }
    }

    /// Takes these held partitions' messages again, from the next one in their queue (a poll
    /// waiting for messages looks at them at once); resumes those paused instead. Does not block.
    public func release(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        let withoutQueue = context.setHeld(false, partitions)
        if !withoutQueue.isEmpty { try changeFetching(withoutQueue, resume: true) }
    }

    private func changeFetching(_ partitions: [KafkaTopicPartition], resume: Bool) throws(KafkaError) {
        let list = RDKafkaTopicPartitionList(partitions)
        let result = list.withPointer { resume ? rd_kafka_resume_partitions(client.handle, $0) : rd_kafka_pause_partitions(client.handle, $0) }
        let failed = list.entries.first { $0.2 != RD_KAFKA_RESP_ERR_NO_ERROR }
        if result != RD_KAFKA_RESP_ERR_NO_ERROR || failed != nil {
            throw KafkaError(failed?.2 ?? result, resume ? "resume" : "pause", topicPartition: failed?.0)
        }
    }

    /// The partitions assigned to this consumer now.
    public var assignment: Set<KafkaTopicPartition> {
        context.state.withLock { Set($0.partitions.keys) }
    }

    /// Each assigned partition's lag, from the latest statistics (see
    /// ``KafkaConsumerConfiguration/statisticsInterval``); empty while statistics are off.
    public var lag: [KafkaTopicPartition: KafkaPartitionLag] {
        context.state.withLock { $0.lag }
    }

    /// How many of the cluster's brokers the consumer is connected to, from the latest statistics
    /// (see ``KafkaConsumerConfiguration/statisticsInterval``); nil while statistics are off or
    /// before the first that names a broker. 0: every broker is out of reach.
    public var brokersUp: Int? {
        context.state.withLock { $0.brokersUp }
    }

    /// Leaves the group in order: commits the stored offsets (each partition's watermark), releases
    /// every partition while serving the final revoke (which commits the watermarks again; work still
    /// in flight goes to the next owner), then closes. A dynamic member leaves the group; a static
    /// member (`group.instance.id`) does not, as KIP-345 wants: the group keeps its place until its
    /// session times out, so a member restarted with the same id within it takes its partitions back
    /// without a rebalance. Blocking, up to about `timeout` for the group to let go; later calls do
    /// nothing.
    /// - Throws: the first failure, after the consumer has closed in any case (``KafkaError/Code/timedOut``
    ///   when librdkafka did not finish closing in time: the client is then destroyed without it). A
    ///   commit the group refuses because it has moved on from this member (``KafkaError/Code/groupMovedOn``:
    ///   another member stopped or joined meanwhile) is not a failure of closing: the partitions' next
    ///   owner reads from the last commit the group accepted, so work is read again, never skipped.
    public func close(timeout: Duration = .seconds(30)) throws(KafkaError) {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let commitFailure = commitStoredOffsets("commit on close")
        let deadline = Deadline(after: timeout)
        // librdkafka before 2.3 aborts when a cooperative-sticky member that joined is destroyed before
        // its first assignment (librdkafka #4312): let the first assignment arrive.
        if subscribed && context.cooperative {
            pollDiscarding(until: deadline) { context.state.withLock { $0.assignedOnce } }
        }
        // librdkafka 2.0 can hang in rd_kafka_consumer_close when a cooperative rebalance is under way
        // (librdkafka #4527): a dynamic member unsubscribes and polls until nothing is assigned, then
        // closes. A static member must not: unsubscribing sends a LeaveGroup whenever the unassign
        // finishes before the close begins (docs/kafka.md, "A static member keeps its place"). Its
        // close is served on a queue of its own, so a hang ends at the deadline.
        if subscribed && !staticMember && rd_kafka_unsubscribe(client.handle) == RD_KAFKA_RESP_ERR_NO_ERROR {
            pollDiscarding(until: deadline) { assignment.isEmpty && librdkafkaAssignmentIsEmpty() }
        }
        // librdkafka wants every queue reference gone before it closes (rdkafka.h).
        context.releaseQueues()
        let result = subscribed && staticMember ? closeServing(until: deadline) : rd_kafka_consumer_close(client.handle)
        if let commitFailure, !KafkaError.Code.groupMovedOn.contains(commitFailure.code) { throw commitFailure }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, "close") }
    }

    deinit {
        // A consumer dropped without closing: the queue references go before the client is destroyed.
        context.releaseQueues()
    }

    /// Polls (serving rebalances) until `done` or the deadline. A message that arrives is not handed
    /// out, so not tracked: its partition's next owner receives it.
    private func pollDiscarding(until deadline: Deadline, _ done: () -> Bool) {
        while !done(), !deadline.hasPassed {
            if let message = rd_kafka_consumer_poll(client.handle, 100) { rd_kafka_message_destroy(message) }
        }
    }

    /// Closes without unsubscribing, serving the close's rebalance callbacks on a queue of its own
    /// until librdkafka reports the consumer closed, or the deadline passes (`_TIMED_OUT`).
    private func closeServing(until deadline: Deadline) -> rd_kafka_resp_err_t {
        guard let queue = rd_kafka_queue_new(client.handle) else { return RD_KAFKA_RESP_ERR__CRIT_SYS_RESOURCE }
        defer {
            rd_kafka_queue_destroy(queue)
            // A partition assigned while closing got a queue of its own (librdkafka #4527's case).
            context.releaseQueues()
        }
        if let error = rd_kafka_consumer_close_queue(client.handle, queue) {
            defer { rd_kafka_error_destroy(error) }
            return rd_kafka_error_code(error)
        }
        while rd_kafka_consumer_closed(client.handle) == 0 {
            guard !deadline.hasPassed else { return RD_KAFKA_RESP_ERR__TIMED_OUT }
            _ = rd_kafka_queue_poll_callback(queue, 100)
        }
        return RD_KAFKA_RESP_ERR_NO_ERROR
    }

    private func librdkafkaAssignmentIsEmpty() -> Bool {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(client.handle, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return true }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        return list.pointee.cnt == 0
    }
}
