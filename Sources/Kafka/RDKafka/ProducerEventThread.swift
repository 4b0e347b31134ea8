internal import CRdKafka
import Synchronization
import Runtime

/// The producer's own thread: it serves librdkafka's main event queue (delivery reports and errors,
/// `RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR`) and hands them to the owner in batches. Waiting on the
/// queue blocks, so it runs here and never on Swift's cooperative pool.
final class ProducerEventThread: Sendable {
    private let queue: RDKafkaQueue
    private let handler: @Sendable (KafkaProducerEvent) -> Void
    /// Reports for messages librdkafka refused at enqueue time, delivered by this thread so that the
    /// owner sees every report on one thread.
    private let localReports = Mutex<[KafkaDeliveryReport]>([])
    private let stopping = Atomic<Bool>(false)
    private let thread = ServiceThread()
    /// Senders waiting for room in librdkafka's queue, woken when delivery reports free some.
    private let waitingForRoom = Atomic<Int>(0)
    private let roomFreed = Semaphore()

    init(queue: RDKafkaQueue, handler: @escaping @Sendable (KafkaProducerEvent) -> Void) {
        self.queue = queue
        self.handler = handler
        thread.start(name: "kafka-producer-events") { [self] in run() }
    }

    func reportLocally(_ reports: [KafkaDeliveryReport]) {
        localReports.withLock { $0.append(contentsOf: reports) }
        rd_kafka_queue_yield(queue.pointer)  // hand them over now, not at the end of the current wait
    }

    /// Waits until delivery reports have freed room in librdkafka's queue, or `timeout` passes. A
    /// wake-up meant for another waiter only makes the caller try once more.
    func waitForRoom(timeout: Duration) {
        waitingForRoom.add(1, ordering: .sequentiallyConsistent)
        _ = roomFreed.wait(milliseconds: timeout.wholeMilliseconds)
        waitingForRoom.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Asks the thread to finish once the queue is drained, without waiting.
    func requestStop() {
        stopping.store(true, ordering: .releasing)
        rd_kafka_queue_yield(queue.pointer)
    }

    /// Asks the thread to finish once the queue is drained, and waits until it has.
    func stop() {
        requestStop()
        try? thread.join()  // `run` throws nothing; a second stop() returns at once
    }

    private func run() {
        // A yield (from requestStop or reportLocally) ends one wait early with nothing served, so the
        // queue counts as drained only after two empty polls in a row once stopping.
        var emptyPollsWhileStopping = 0
        while true {
            let stop = stopping.load(ordering: .acquiring)
            let served = serve(timeoutMilliseconds: stop ? 0 : 100)
            let local = localReports.withLock { reports in
                defer { reports.removeAll() }
                return reports
            }
            if !local.isEmpty { handler(.deliveryReports(local)) }
            emptyPollsWhileStopping = stop && !served ? emptyPollsWhileStopping + 1 : 0
            if emptyPollsWhileStopping == 2 { break }
        }
    }

    /// Serves one event; returns whether there was one.
    private func serve(timeoutMilliseconds: Int32) -> Bool {
        guard let event = rd_kafka_queue_poll(queue.pointer, timeoutMilliseconds) else { return false }
        defer { rd_kafka_event_destroy(event) }  // also frees the event's messages
        switch rd_kafka_event_type(event) {
        case RD_KAFKA_EVENT_DR:
            let reports = deliveryReports(in: event)
            for _ in 0..<waitingForRoom.load(ordering: .sequentiallyConsistent) { roomFreed.signal() }
            handler(.deliveryReports(reports))
        case RD_KAFKA_EVENT_ERROR:
            handler(.error(KafkaError(
                code: KafkaError.Code(rd_kafka_event_error(event)),
                reason: String(cString: rd_kafka_event_error_string(event)),
                isFatal: rd_kafka_event_error_is_fatal(event) != 0
            )))
        default:
            break
        }
        return true
    }

    private func deliveryReports(in event: OpaquePointer) -> [KafkaDeliveryReport] {
        let count = rd_kafka_event_message_count(event)
        var messages = [UnsafePointer<rd_kafka_message_t>?](repeating: nil, count: count)
        let filled = rd_kafka_event_message_array(event, &messages, count)
        var reports: [KafkaDeliveryReport] = []
        reports.reserveCapacity(filled)
        var topicNames = TopicNames()
        for message in messages.prefix(filled) {
            guard let message = message?.pointee else { continue }
            reports.append(KafkaDeliveryReport(reportedBy: message, topic: topicNames.name(of: message.rkt)))
        }
        return reports
    }
}
