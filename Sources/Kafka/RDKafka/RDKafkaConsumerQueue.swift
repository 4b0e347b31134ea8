internal import CRdKafka
import Runtime

/// One reference to a queue a ``KafkaConsumer`` reads itself: an assigned partition's own fetch
/// queue (`rd_kafka_queue_get_partition`), taken out of the consumer queue's forwarding so that its
/// prefetched messages cannot stand in front of another partition's, or the consumer queue
/// (`rd_kafka_queue_get_consumer`: rebalances, errors, statistics). Each signals `arrivals` when it
/// goes from empty to holding something, so the poll can wait on all of them at once.
///
/// librdkafka 2.0.2 (`rdkafka_queue.c`, `rdkafka_partition.c`): `rd_kafka_queue_forward(queue, NULL)`
/// marks the fetch queue as forwarded by the application, so starting to fetch the partition (an
/// assignment) no longer forwards it to the consumer queue; stopping the fetch (a revoke) leaves it
/// unforwarded too. The event callback runs on a librdkafka thread with the queue's lock held, and
/// disabling it takes that lock: once ``deinit`` has disabled it, no callback is running or to come.
///
/// A queue has one event callback, not one per reference: hold at most one reference to a queue
/// at a time (releasing one switches the callback off). Every reference must be released before
/// the client is destroyed, and the consumer queue's before `rd_kafka_consumer_close` (rdkafka.h).
final class RDKafkaConsumerQueue: @unchecked Sendable {  // librdkafka queues are thread-safe; `pointer` never changes
    let pointer: OpaquePointer
    /// Kept alive as long as librdkafka may call back with it.
    private let arrivals: Semaphore

    /// The fetch queue of `partition`, no longer forwarded to the consumer queue; nil when
    /// librdkafka has no such partition.
    init?(partition: KafkaTopicPartition, of client: OpaquePointer, arrivals: Semaphore) {
        guard let queue = rd_kafka_queue_get_partition(client, partition.topic, partition.partition) else { return nil }
        rd_kafka_queue_forward(queue, nil)
        pointer = queue
        self.arrivals = arrivals
        enableArrivalEvents()
    }

    /// The consumer queue, which `rd_kafka_consumer_poll` serves; nil for a client without one.
    init?(consumerQueueOf client: OpaquePointer, arrivals: Semaphore) {
        guard let queue = rd_kafka_queue_get_consumer(client) else { return nil }
        pointer = queue
        self.arrivals = arrivals
        enableArrivalEvents()
    }

    private func enableArrivalEvents() {
        rd_kafka_queue_cb_event_enable(pointer, queueArrivalCallback, Unmanaged.passUnretained(arrivals).toOpaque())
    }

    deinit {
        rd_kafka_queue_cb_event_enable(pointer, nil, nil)
        rd_kafka_queue_destroy(pointer)
    }
}

/// Called with the queue's lock held, on a librdkafka thread: only signals.
private func queueArrivalCallback(_ client: OpaquePointer?, _ opaque: UnsafeMutableRawPointer?) {
    guard let opaque else { return }
    Unmanaged<Semaphore>.fromOpaque(opaque).takeUnretainedValue().signal()
}
