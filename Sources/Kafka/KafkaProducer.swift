internal import CRdKafka
import Synchronization
import Runtime

/// Writes messages to Kafka in batches and reports each one's fate, matched back by
/// ``KafkaProducerMessageID``, on the producer's own event thread.
///
/// ``send(_:)`` blocks only while librdkafka's queue is full (up to
/// ``KafkaProducerConfiguration/enqueueTimeout``); ``close(timeout:)`` blocks until everything sent is
/// delivered or failed. Call them from a dedicated thread, never from Swift's cooperative pool, and
/// do not send while closing. The event handler must not keep the producer alive (a cycle would keep
/// its event thread running).
public final class KafkaProducer: Sendable {
    private let client: RDKafkaClient
    private let events: ProducerEventThread
    private let nextID = Atomic<UInt64>(1)
    private let closed = Atomic<Bool>(false)
    private let enqueueTimeout: Duration
    /// The topics looked up ahead (``lookUp(topics:timeout:)``), kept for the producer's life.
    private let topicsLookedUp = Mutex<[RDKafkaTopic]>([])

    /// - Parameter eventHandler: receives delivery reports and errors on the producer's event thread.
    public init(configuration: KafkaProducerConfiguration,
                eventHandler: @escaping @Sendable (KafkaProducerEvent) -> Void) throws(KafkaError) {
        client = try RDKafkaClient(type: RD_KAFKA_PRODUCER, properties: configuration.properties()) { conf in
            rd_kafka_conf_set_events(conf, RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR)
        }
        events = ProducerEventThread(queue: RDKafkaQueue(mainQueueOf: client), handler: eventHandler)
        enqueueTimeout = configuration.enqueueTimeout
    }

    deinit {
        events.requestStop()
    }

    /// Asks the cluster for each topic's metadata now, and keeps a handle on it, so that the first
    /// messages to it go out at once. Otherwise librdkafka looks up a topic it has not produced to
    /// only on its once-a-second scan of unknown topics, holding those first messages up to a second
    /// (its author's workaround for it, confluentinc/librdkafka#3202; docs/kafka.md). Asking by name
    /// creates the topic where the cluster creates topics on first use, as the first message would.
    /// - Returns: the partition count of each topic whose metadata came back; a topic the cluster
    ///   does not answer for within `timeout` (the first such ends the lookups) is left to librdkafka's
    ///   own lookup when a message comes for it. Nothing fails.
    public func lookUp(topics: [String], timeout: Duration) -> [String: Int] {
        var partitionCounts: [String: Int] = [:]
        for name in topics {
            guard let topic = RDKafkaTopic(name, of: client) else { continue }
            topicsLookedUp.withLock { $0.append(topic) }
            var metadata: UnsafePointer<rd_kafka_metadata>?
            guard rd_kafka_metadata(client.handle, 0, topic.handle, &metadata, timeout.timeoutMilliseconds) == RD_KAFKA_RESP_ERR_NO_ERROR,
                  let metadata else { break }
            defer { rd_kafka_metadata_destroy(metadata) }
            if let found = metadata.pointee.topic(named: name), found.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                partitionCounts[name] = Int(found.partition_cnt)
            }
        }
        return partitionCounts
    }

    /// Enqueues the messages, in order, and returns their ids. Each message later gets exactly one
    /// ``KafkaDeliveryReport``: one that librdkafka refuses (unknown partition, too large, queue still
    /// full after the enqueue timeout) gets a failed report without reaching a broker.
    /// - Throws: ``KafkaError/Code/destroyed`` after ``close(timeout:)``; nothing was enqueued then.
    public func send(_ messages: [KafkaProducerMessage]) throws(KafkaError) -> [KafkaProducerMessageID] {
        guard !closed.load(ordering: .acquiring) else {
            throw KafkaError(code: .destroyed, reason: "the producer is closed", isRetryable: false)
        }
        let first = nextID.add(UInt64(messages.count), ordering: .relaxed).oldValue
        let ids = (0..<UInt64(messages.count)).map { KafkaProducerMessageID(rawValue: first + $0) }
        var refused: [KafkaDeliveryReport] = []
        // By index: each message is read where it lies (a zip copied every message, three references).
        for index in messages.indices {
            if let report = enqueue(messages[index], id: ids[index]) { refused.append(report) }
        }
        if !refused.isEmpty { events.reportLocally(refused) }
        return ids
    }

    /// Waits up to `timeout` for every sent message to be delivered or failed (their reports reach
    /// the handler before this returns), then stops the event thread. Blocking; later calls do nothing.
    public func close(timeout: Duration = .seconds(30)) throws(KafkaError) {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let result = rd_kafka_flush(client.handle, timeout.timeoutMilliseconds)
        let outstanding = rd_kafka_outq_len(client.handle)
        events.stop()
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(result, "flush on close left \(outstanding) messages undelivered")
        }
    }

    /// One message into librdkafka's queue, waiting for room while it is full; a failed report if refused.
    private func enqueue(_ message: KafkaProducerMessage, id: KafkaProducerMessageID) -> KafkaDeliveryReport? {
        var deadline: Deadline?
        while true {
            guard let error = produce(message, id: id) else { return nil }
            if rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__QUEUE_FULL {
                let limit = deadline ?? Deadline(after: enqueueTimeout)
                deadline = limit
                if !limit.hasPassed {
                    rd_kafka_error_destroy(error)
                    events.waitForRoom(timeout: .milliseconds(10))
                    continue
                }
            }
            let place = KafkaTopicPartition(topic: message.topic, partition: message.partition ?? -1)
            return KafkaDeliveryReport(id: id, topicPartition: place,
                                       result: .failure(KafkaError(taking: error, "enqueue", topicPartition: place)),
                                       refusedMessage: message)
        }
    }

    /// `rd_kafka_produceva` (the array form; Swift cannot call the variadic `rd_kafka_producev`),
    /// with `RD_KAFKA_MSG_F_COPY` so no Swift memory has to outlive the call.
    private func produce(_ message: KafkaProducerMessage, id: KafkaProducerMessageID) -> OpaquePointer? {
        message.topic.withCString { topic in
            message.withKeyBytes { key in
                message.withValueBytes { value in
                    var values = (rd_kafka_vu_t(), rd_kafka_vu_t(), rd_kafka_vu_t(), rd_kafka_vu_t(),
                                  rd_kafka_vu_t(), rd_kafka_vu_t())
                    values.0.vtype = RD_KAFKA_VTYPE_TOPIC
                    values.0.u.cstr = topic
                    values.1.vtype = RD_KAFKA_VTYPE_PARTITION
                    values.1.u.i32 = message.partition ?? -1  // RD_KAFKA_PARTITION_UA: let the partitioner choose
                    values.2.vtype = RD_KAFKA_VTYPE_KEY
                    values.2.u.mem.ptr = UnsafeMutableRawPointer(mutating: key.baseAddress)
                    values.2.u.mem.size = key.count
                    values.3.vtype = RD_KAFKA_VTYPE_VALUE
                    values.3.u.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress)
                    values.3.u.mem.size = value.count
                    values.4.vtype = RD_KAFKA_VTYPE_OPAQUE
                    values.4.u.ptr = UnsafeMutableRawPointer(bitPattern: UInt(id.rawValue))
                    values.5.vtype = RD_KAFKA_VTYPE_MSGFLAGS
                    values.5.u.i = RD_KAFKA_MSG_F_COPY
                    return withUnsafePointer(to: &values) { tuple in
                        tuple.withMemoryRebound(to: rd_kafka_vu_t.self, capacity: 6) { rd_kafka_produceva(client.handle, $0, 6) }
                    }
                }
            }
        }
    }
}
