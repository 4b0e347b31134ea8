import Kafka
import Pipeline
import Redis
import Runtime
import Synchronization

/// The worker's claim and record round trips, run in order on a thread of their own with a Redis
/// connection of their own, so that the loop's thread goes on polling, taking plans, producing and
/// completing while Redis answers. Results come back through an ``Inbox``. A claim of the lanes
/// above the lightest (`ahead`) runs next, before the jobs queued in front of it, so that under a
/// bulk backlog it waits only for the round trip in hand (docs/worker.md).
///
/// The set of deliveries this worker has claimed and not yet recorded lives here, on this thread,
/// where claims and records happen in order: a claim that finds this worker's own `pending` for a
/// delivery in that set (another copy of it) defers that copy.
///
/// It says the worker lives (its liveness key) every third of `dedupe.owner_ttl`, and renews the
/// `pending` claims of that set every third of the pending TTL (``KeepAliveSchedule``), so a
/// delivery held at the sender (an APNs outage, up to `max_hold`) is never taken over by another
/// worker, and one that a dead worker left is (docs/worker.md, "Uncertain deliveries").
///
/// So do the partitions' recorded watermarks that moved since they were last written
/// (``noteRecorded(_:)``), at most once per ``watermarkFlushMilliseconds``: with the record round
/// trip that runs when they are due, or alone when none comes, so the window in which a redelivery
/// emits an outcome Kafka already has stays short (docs/worker.md).
final class RedisStage: Sendable {
    enum Job: Sendable {
        case claim([PlannedDelivery], ahead: Bool)
        case record([SentDelivery])
    }

    enum Outcome: Sendable {
        /// `ahead`: the job's, which may have run before jobs submitted earlier.
        case claimed(DeliveryStages.Claims, ahead: Bool)
        case recorded([SentDelivery], tokenEvents: [WorkerOutput])
        /// The job did not run to its end; a retryable ``RedisError`` means Redis is out and the
        /// job may run again as a whole.
        case failed(Job, any Error)
    }

    private let jobs: Inbox<Job>
    private let jobArrived = Runtime.Semaphore()
    private let outcomes: Inbox<Outcome>
    private let stopping = Atomic<Bool>(false)
    private let thread = ServiceThread()
    private let clock: MonotonicClock
    /// Recorded watermarks not yet written, by partition.
    private let recorded = Mutex<[KafkaTopicPartition: Int64]>([:])
    /// The least time between two round trips that write watermarks alone, ms.
    static let watermarkFlushMilliseconds = 10

    /// Starts the thread; it connects to Redis (with Redis stores) when its first job comes.
    init(configuration: WorkerConfiguration, planner: DeliveryPlanner, stores: StoreAccess, owner: String, wakeUp: Runtime.Semaphore) {
        jobs = Inbox(wakeUp: jobArrived)
        outcomes = Inbox(wakeUp: wakeUp)
        clock = configuration.clock
        thread.start(name: "pushline-redis-\(configuration.pipelineName)") { [self] in
            run(configuration: configuration, planner: planner, stores: stores, owner: owner)
        }
    }

    /// Queues a job behind the others (a claim `ahead`, behind the other claims ahead only).
    func submit(_ job: Job) {
        jobs.append(contentsOf: [job])
    }

    /// Notes partitions' watermarks that moved (every message below each offset has all its outputs
    /// in Kafka), to be written to Redis with the next record round trip.
    func noteRecorded(_ watermarks: [KafkaTopicPartition: Int64]) {
        guard !watermarks.isEmpty else { return }
        let wasEmpty = recorded.withLock { recorded in
            defer { recorded.merge(watermarks, uniquingKeysWith: max) }
            return recorded.isEmpty
        }
        // Only the first watermark waiting needs to cut the thread's long idle wait short; while
        // some wait, it already wakes every `watermarkFlushMilliseconds`, and each extra signal (one
        // per acknowledged batch) would be one more turn of its loop with nothing to do.
        if wasEmpty { jobArrived.signal() }
    }

    /// Every outcome since the last call, in the order the jobs ran.
    func take() -> [Outcome] {
        outcomes.take()
    }

    /// Ends the thread once the job in hand is done; queued jobs are dropped. Waits for it.
    func stop() {
        stopping.store(true, ordering: .releasing)
        jobArrived.signal()
        // The body throws nothing; a second stop() returns at once.
        try? thread.join()
    }

    private func run(configuration: WorkerConfiguration, planner: DeliveryPlanner, stores: StoreAccess, owner: String) {
        var stages: DeliveryStages?
        var claimed = Set<DeliveryKey>()
        var queued: [Job] = []
        let flush = Duration.milliseconds(Self.watermarkFlushMilliseconds)
        var watermarksWritten = clock.now - flush
        var keepAlive = KeepAliveSchedule(ownerTTL: configuration.ownerTTL,
                                          pendingTTL: .milliseconds(configuration.idempotency.pendingMilliseconds), start: clock.now)
        /// Says the worker lives, and renews its claims, when due; a failure is tried again next turn
        /// (the jobs meet the same Redis and report the outage).
        func keepAliveIfDue(_ stages: DeliveryStages) {
            let now = clock.now
            guard let renewing = keepAlive.due(at: now) else { return }
            do {
                try stages.keepAlive(holding: renewing ? claimed : [], livenessMilliseconds: keepAlive.livenessMilliseconds)
                keepAlive.done(renewing: renewing, at: now)
            } catch {}
        }
        /// Whether the watermarks noted may be written now: at most once per `flush`, so that
        /// records of small chunks of answers, one round trip each, do not each carry a Lua call
        /// per partition.
        func watermarksDue() -> Bool {
            clock.now >= watermarksWritten + flush
        }
        while !stopping.load(ordering: .acquiring) {
            let idle = stages == nil ? 1000 : max(1, min(1000, (keepAlive.next - clock.now).wholeMilliseconds))
            let untilWatermarks = max(1, (watermarksWritten + flush - clock.now).wholeMilliseconds)
            _ = jobArrived.wait(milliseconds: recorded.withLock(\.isEmpty) ? idle : min(idle, untilWatermarks))
            // Taken again after every job, so that a claim ahead submitted meanwhile runs next.
            while !stopping.load(ordering: .acquiring) {
                queued += jobs.take()
                guard let job = Self.next(from: &queued) else { break }
                do {
                    if stages == nil {
                        stages = try DeliveryStages(configuration: configuration, planner: planner, stores: stores, owner: owner)
                    }
                    // The liveness key stands before this worker's first claim names it.
                    keepAliveIfDue(stages!)
                    let carriesWatermarks = watermarksDue()
                    outcomes.append(contentsOf: [try perform(job, stages: stages!, claimed: &claimed, carryingWatermarks: carriesWatermarks)])
                    if case .record = job, carriesWatermarks { watermarksWritten = clock.now }
                } catch {
                    outcomes.append(contentsOf: [.failed(job, error)])
                }
            }
            if let stages { keepAliveIfDue(stages) }
            if let stages, watermarksDue() {
                let watermarks = takeRecorded()
                guard !watermarks.isEmpty else { continue }
                watermarksWritten = clock.now
                // Written alone; a failure keeps them for later (the next job meets the same Redis).
                do { try stages.record(watermarks) } catch { putBack(watermarks) }
            }
        }
    }

    private func perform(_ job: Job, stages: DeliveryStages, claimed: inout Set<DeliveryKey>,
                         carryingWatermarks: Bool) throws(RedisError) -> Outcome {
        switch job {
        case .claim(let planned, let ahead):
            let claims = try stages.claim(planned, inFlight: claimed)
            for delivery in claims.admitted { claimed.insert(delivery.key) }
            return .claimed(claims, ahead: ahead)
        case .record(let sent):
            let watermarks = carryingWatermarks ? takeRecorded() : []
            let tokenEvents: [WorkerOutput]
            do {
                tokenEvents = try stages.record(sent, recorded: watermarks)
            } catch {
                putBack(watermarks)
                throw error
            }
            for delivery in sent where delivery.holdsClaim { claimed.remove(delivery.planned.key) }
            return .recorded(sent, tokenEvents: tokenEvents)
        }
    }

    /// Takes the job to run next from the queue: the first claim ahead, or else the first job, a
    /// record joined with the record jobs right behind it — a send's answers come in chunks (one per
    /// turn of the sender's loop), and chunks that queued up while a round trip ran go together in
    /// the next one. Nil when the queue is empty.
    static func next(from queued: inout [Job]) -> Job? {
        if let ahead = queued.firstIndex(where: { if case .claim(_, ahead: true) = $0 { true } else { false } }) {
            return queued.remove(at: ahead)
        }
        guard let first = queued.first else { return nil }
        guard case .record(var sent) = first else { return queued.removeFirst() }
        let run = queued.prefix { if case .record = $0 { true } else { false } }
        for case .record(let more) in run.dropFirst() { sent.append(contentsOf: more) }
        queued.removeFirst(run.count)
        return .record(sent)
    }

    /// The watermarks noted since the last call, as positions (partition and offset). After
    /// ``stop()``, what the thread did not write: the worker's shutdown writes it.
    func takeRecorded() -> [SourcePosition] {
        recorded.withLock { recorded in
            defer { recorded = [:] }
            return recorded.map { SourcePosition(topic: $0.key.topic, partition: $0.key.partition, offset: $0.value) }
        }
    }

    private func putBack(_ watermarks: [SourcePosition]) {
        noteRecorded(Dictionary(watermarks.map { (KafkaTopicPartition(topic: $0.topic, partition: $0.partition), $0.offset) },
                                uniquingKeysWith: max))
    }
}
