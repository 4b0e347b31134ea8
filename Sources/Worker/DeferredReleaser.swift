import Kafka
import PushlineConfiguration
import Pipeline
import Redis
import Runtime
import Synchronization
import Telemetry

/// Puts deferred deliveries (quiet hours, the background budget, docs/policies.md) back into the
/// send path when they are due. On a thread of its own, every `policies.quiet_hours.release_interval`
/// (1 s without quiet hours; real time; at once
/// again after a take that found some), it takes what is due at the worker's wall clock from the deferred store — leased, so no other worker takes
/// the same entries within the lease — and produces each entry's ``ReleaseRecord`` onto the intents
/// topic. The worker group then reads the record among the intent messages: its one delivery as it
/// was planned, claimed (taking over the `deferred` claim once), through the policy stage without quiet hours,
/// sent and recorded, its message completed as usual. An entry is completed in the store only once
/// Kafka has acknowledged its record; one whose record is refused, or whose releaser dies first, is
/// due again when its lease ends, and the second record it gives decides nothing more (its claim is
/// no longer `deferred`). An entry whose body does not begin with the release record's marker (not
/// written by a worker) is never produced: it is logged (`UnreadableDeferredEntry`), counted, and
/// left in the store. (One that begins with it but is otherwise broken is produced, and the worker
/// that reads it dead-letters it: it cannot be sent, an intent being a JSON object.)
///
/// Its own producer and Redis connection (or the worker's in-memory store), so the worker's loop
/// and its state machine do not change.
final class DeferredReleaser: Sendable {
    private let configuration: WorkerConfiguration
    private let interval: Duration
    private let intentsTopic: String
    private let stores: StoreAccess
    private let metrics: WorkerMetrics
    private let logger: Logger
    private let thread = ServiceThread()
    private let stopping = Atomic<Bool>(false)
    private let wakeUp = Semaphore()

    /// Nil when the worker defers nothing (neither quiet hours nor the background budget) or has no intents topic.
    init?(configuration: WorkerConfiguration, stores: StoreAccess, metrics: WorkerMetrics, logger: Logger) {
        let policies = configuration.policies
        guard policies.quietHours != nil || policies.backgroundBudget.enabled, let topic = configuration.consumer.topics.first else { return nil }
        self.configuration = configuration
        interval = policies.quietHours?.releaseInterval ?? QuietHoursConfiguration.defaultReleaseInterval
        intentsTopic = topic
        self.stores = stores
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts the releaser's thread; call once.
    func start() {
        thread.start(name: "pushline-release", { [self] in try run() }, whenFailed: { [logger] error in
            logger.error("deferred releaser failed", metadata: ["error": .string("\(error)")])
        })
    }

    /// Stops taking entries, waits up to 5 s for Kafka to acknowledge the records produced,
    /// completes their entries, and returns once the thread has ended.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wakeUp.signal()
        try? thread.join()
    }

    private func run() throws {
        let reports = Inbox<KafkaDeliveryReport>()
        let producer = try KafkaProducer(configuration: configuration.producer) { event in
            if case .deliveryReports(let arrived) = event { reports.append(contentsOf: arrived) }
        }
        // Its first releases would otherwise wait up to a second for librdkafka to find the topic (docs/kafka.md).
        _ = producer.lookUp(topics: [intentsTopic], timeout: .seconds(2))
        var released = Released()
        var store: (any DeferredEntryStore)?
        while !stopping.load(ordering: .acquiring) {
            // A turn whose take found something is followed at once by the next: more may be due
            // than one take returns (at most `takeLimit` per shard). What it took is leased, so the
            // next take does not find it again.
            var tookSome = false
            do {
                let connected = try store ?? connect()
                store = connected
                released.acknowledge(reports.take(), logger: logger)
                try complete(&released, in: connected)
                let taken = try connected.takeDue(now: configuration.wallClock.millisecondsSinceEpoch())
                tookSome = !taken.isEmpty
                var due: [DeferredEntry] = [], unreadable: [DeferredEntry] = []
                for entry in taken {
                    if ReleaseRecord.isRecord(entry.body) { due.append(entry) } else { unreadable.append(entry) }
                }
                if !unreadable.isEmpty { reportUnreadable(unreadable) }
                if !due.isEmpty {
                    let ids = try producer.send(due.map {
                        KafkaProducerMessage(topic: intentsTopic, textKey: $0.id, value: $0.body)
                    })
                    released.sent(zip(ids, due.map(\.withoutBody)))
                    logger.debug("deferred deliveries released", metadata: ["deliveries": .string("\(due.count)")])
                }
            } catch let error as RedisError {
                // Taken entries not yet completed come due again when their lease ends.
                logger.warning("deferred release failed", metadata: ["error": .string(error.code.description)])
                store = nil
            }
            if !tookSome { _ = wakeUp.wait(milliseconds: interval.wholeMilliseconds) }
        }
        try? producer.close(timeout: .seconds(5))
        released.acknowledge(reports.take(), logger: logger)
        if let store { try? complete(&released, in: store) }
    }

    private func connect() throws(RedisError) -> any DeferredEntryStore {
        switch stores {
        case .redis(let redis):
            let connection = try RedisConnection(configuration: redis)
            return DeferredStore(connection: connection, pipeline: configuration.pipelineName, configuration: configuration.deferredStore)
        case .inMemory(_, _, _, _, _, let deferred):
            return deferred
        }
    }

    /// Entries whose bodies do not begin as a release record (written by something other than a
    /// worker) are not produced: onto the intents topic they could be read as intents and sent.
    /// Each is logged with a machine-readable reason and counted, and left leased in the store —
    /// reported again when its lease ends — for an operator to look at or remove.
    private func reportUnreadable(_ entries: [DeferredEntry]) {
        metrics.deferredUnreadable.increment(by: entries.count)
        for entry in entries {
            logger.warning("deferred entry holds no release record; left in the store", metadata: [
                "reason": .string("UnreadableDeferredEntry"), "entry": .string(entry.id), "bytes": .string("\(entry.body.count)"),
            ])
        }
    }

    /// Completes the entries whose records Kafka acknowledged; kept for the next turn if Redis fails.
    private func complete(_ released: inout Released, in store: any DeferredEntryStore) throws(RedisError) {
        guard !released.acknowledged.isEmpty else { return }
        try store.complete(released.acknowledged)
        metrics.deferredReleased.increment(by: released.acknowledged.count)
        released.acknowledged.removeAll()
    }

    /// The entries whose release records are on their way to Kafka, and those Kafka has.
    /// Each entry is kept as taken, with its lease, which its completion checks (an entry kept again
    /// meanwhile stays in the store), but without its body: a take returns up to thousands.
    private struct Released {
        private var waiting: [KafkaProducerMessageID: DeferredEntry] = [:]
        var acknowledged: [DeferredEntry] = []

        mutating func sent(_ records: some Sequence<(KafkaProducerMessageID, DeferredEntry)>) {
            for (message, entry) in records { waiting[message] = entry }
        }

        /// The reports of records ``sent(_:)`` (reports are taken on the releaser's thread, after
        /// the ids of what it sent were noted there); a refused record's entry stays leased.
        mutating func acknowledge(_ reports: [KafkaDeliveryReport], logger: Logger) {
            for report in reports {
                guard let entry = waiting.removeValue(forKey: report.id) else { continue }
                switch report.result {
                case .success: acknowledged.append(entry)
                case .failure(let error):
                    logger.warning("release record refused", metadata: ["error": .string(error.code.description), "entry": .string(entry.id)])
                }
            }
        }
    }
}

extension DeferredEntry {
    /// The entry without its body: what completing it needs.
    fileprivate var withoutBody: DeferredEntry {
        var entry = self
        entry.body = []
        return entry
    }
}
