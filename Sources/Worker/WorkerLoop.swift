import APNsClient
import APNsCore
import Enrichment
import Foundation
import Kafka
import Pipeline
import Redis
import Runtime
import Telemetry

/// The worker's thread: one loop that owns the consumer and the producer and performs what its
/// ``StateMachine`` decides. Nothing here blocks on planning, on Redis claims and records, on the
/// sender or on Kafka's acknowledgements: messages are planned by ``PlanningTasks``, claims and
/// records run on the ``RedisStage``, sends finish through ``SendCompletions`` (which also build the
/// outcomes), acknowledgements (the producer's delivery reports) arrive in an ``Inbox``, and each
/// turn of the loop takes whatever has arrived and feeds it to the machine as events. The token
/// registry's round trips for `user` recipients run on ``RegistryLookups``; the loop's own Redis
/// connection (``DeliveryStages``) serves `PING`, the throttles' tokens and releases.
///
/// One turn: plans, finished sends, claim and record answers and acknowledgements go to the
/// machine; then the time (``StateMachine/tick(now:apnsCircuitOpen:)``: records to produce again,
/// Redis to retry, deferred deliveries due, the open batch to close, pausing); then a poll for more
/// intents unless the machine says the sender or the planners have enough.
final class WorkerLoop {
    /// A polled message addressed to a user, decoded, with its place in the ledger.
    typealias MessageToPlan = (intent: Intent, message: KafkaConsumerMessage, entry: MessageLedger.EntryID)

    private let configuration: WorkerConfiguration
    private let sender: APNsSender
    private let metrics: WorkerMetrics
    private let logger: Logger
    private let status: WorkerStatus
    private let wakeUp = Semaphore()
    private let acknowledgements: Inbox<KafkaDeliveryReport>
    private let completions: SendCompletions
    private let planning: PlanningTasks
    private let consumerEvents = Inbox<KafkaConsumerEvent>()
    private let rebalanceHook = RebalanceHook()
    private let producer: KafkaProducer
    private let consumer: KafkaConsumer
    /// The loop's own Redis work: `PING`, the throttles' tokens, releases; nil until Redis has
    /// answered (a worker may start while Redis is out).
    private var stages: DeliveryStages?
    private let stores: StoreAccess
    private let owner = NotificationID.random().description
    private let planner: DeliveryPlanner
    /// Claims and records.
    private let redisStage: RedisStage
    /// The token registry's answers for `user` recipients.
    private let registryLookups: RegistryLookups

    /// Every decision about the work in hand.
    private var machine: StateMachine
    /// The worker's monotonic clock (``WorkerConfiguration/clock``).
    private let clock: MonotonicClock
    private var nextLagUpdate: MonotonicClock.Instant
    /// The Kafka timestamp of the newest message taken from each partition (lag in time).
    private var newestConsumed: [KafkaTopicPartition: Int64] = [:]
    /// Set once the consumer closes: its final revoke finds the work already finished or handed back.
    private var closing = false
    /// An error met inside the rebalance callback, which cannot throw; thrown once `poll` returns.
    private var rebalanceFailure: (any Error)?
    /// `shutdown.deadline` from when stopping began: the drain ends then, and flushing and closing
    /// get what is left of it (at least ``closingAllowance``).
    private var drainDeadline: Deadline?
    /// The least time flushing the producer, and then closing the consumer, each get after the
    /// drain, so that a drain that used the whole deadline still commits what it completed.
    static let closingAllowance = Duration.seconds(2)

    init(configuration: WorkerConfiguration, catalog: CatalogStore, sender: APNsSender, metrics: WorkerMetrics, logger: Logger,
         status: WorkerStatus) throws {
        self.configuration = configuration
        self.sender = sender
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "pipeline"] = .string(configuration.pipelineName)
        self.logger = logger
        self.status = status
        clock = configuration.clock
        nextLagUpdate = clock.now
        machine = StateMachine(configuration: configuration)
        let acknowledgements = Inbox<KafkaDeliveryReport>(wakeUp: wakeUp)
        self.acknowledgements = acknowledgements
        // The loop's thread never waits for room in librdkafka's queue: a record refused because the
        // queue is full comes back at once as a passing refusal, retried after a back-off while the
        // partitions are paused (``StateMachine``).
        var producerConfiguration = configuration.producer
        producerConfiguration.enqueueTimeout = .zero
        producer = try KafkaProducer(configuration: producerConfiguration) { event in
            if case .deliveryReports(let reports) = event { acknowledgements.append(contentsOf: reports) }
        }
        var consumerConfiguration = configuration.consumer
        consumerConfiguration.statisticsInterval = consumerConfiguration.statisticsInterval ?? configuration.lagInterval
        // librdkafka's default lets a broker hold a fetch 500 ms when it has nothing new (librdkafka's
        // mock broker always does): intents would wait that long. A worker that has caught up asks again soon.
        consumerConfiguration.additionalProperties["fetch.wait.max.ms"] = consumerConfiguration.additionalProperties["fetch.wait.max.ms"]
            ?? String(configuration.fetchWait.wholeMilliseconds)
        consumer = try KafkaConsumer(configuration: consumerConfiguration) { [consumerEvents, rebalanceHook] event in
            rebalanceHook.loop?.rebalancing(event)
            consumerEvents.append(contentsOf: [event])
        }
        stores = StoreAccess(configuration.stores, idempotency: configuration.idempotency, deferred: configuration.deferredStore, owner: owner)
        planner = DeliveryPlanner(configuration: configuration, catalog: catalog)
        redisStage = RedisStage(configuration: configuration, planner: planner, stores: stores, owner: owner, wakeUp: wakeUp)
        completions = SendCompletions(records: planner.records, wakeUp: wakeUp)
        planning = PlanningTasks(planner: planner, wakeUp: wakeUp)
        registryLookups = RegistryLookups(configuration: configuration, planner: planner, stores: stores, owner: owner, planning: planning,
                                          wakeUp: wakeUp)
        rebalanceHook.loop = self
    }

    func run() throws {
        logger.info("worker started", metadata: ["topics": .string(configuration.consumer.topics.joined(separator: ",")),
                                                 "group": .string(configuration.consumer.groupID)])
        // Before the first intent is taken: the first outcomes would otherwise wait up to a second for
        // librdkafka to find their topic, and the pipeline behind them (docs/kafka.md).
        let outputTopics = [configuration.outcomesTopic, configuration.tokenEventsTopic, configuration.dlqTopic]
        let found = producer.lookUp(topics: outputTopics, timeout: .seconds(2))
        if found.count < outputTopics.count {
            logger.warning("output topics not found at start; their first records wait for librdkafka's lookup",
                           metadata: ["topics": .string(outputTopics.filter { found[$0] == nil }.joined(separator: ","))])
        }
        // Quiet hours, the background budget: deferred deliveries go back onto the intents topic when due, beside the loop.
        let releaser = DeferredReleaser(configuration: configuration, stores: stores, metrics: metrics, logger: logger)
        releaser?.start()
        defer { releaser?.stop() }
        // Last, however the loop ends — a stop, or an error that ends the worker and skips `finish()`:
        // no thread or task of the worker's outlives it (the sends still waiting for APNs are given
        // up; their work was handed back). A stage `finish()` stopped already returns at once.
        defer {
            redisStage.stop()
            registryLookups.stop()
            completions.stop()
            planning.stop()
        }
        do {
            _ = try connectedStages()
        } catch {
            // Redis out at start: the worker waits for it like for any outage.
            guard error.isRetryable else { throw error }
            try perform(machine.redisFailed(error, now: clock.now))
        }
        while true {
            if drainDeadline == nil && status.stopping.load(ordering: .acquiring) {
                drainDeadline = Deadline(after: configuration.shutdownDeadline, clock: clock)
                machine.drainRequested()
                logger.info("worker stopping", metadata: ["deadline": "\(configuration.shutdownDeadline)"])
            }
            try serve()
            if let drainDeadline {
                if machine.isIdle || drainDeadline.hasPassed { break }
                _ = wakeUp.wait(milliseconds: 10)
                continue
            }
            guard machine.mayPoll else {
                // The partitions feeding the lanes above the lightest are read meanwhile, checked
                // again after a wait as short as a slot's.
                let aheadLimit = machine.aheadLimit
                if aheadLimit > 0, try taken(consumer.take(from: machine.partitionsAboveLightest, maxMessages: aheadLimit)) {
                    continue
                }
                _ = wakeUp.wait(milliseconds: aheadLimit > 0 ? 2 : 5)
                continue
            }
            let waitingForSlot = machine.waitsForSlot
            let messages = consumer.poll(maxMessages: machine.pollLimit, timeout: machine.pollTimeout(now: clock.now),
                                         first: machine.partitionsAboveLightest)
            if let rebalanceFailure { throw rebalanceFailure }
            handleConsumerEvents()
            try taken(messages)
            // Reading ahead with every batch slot taken and nothing new: wait for what frees a slot
            // (or for 2 ms, then poll again) rather than turn round at once, which kept a core busy.
            if waitingForSlot && messages.isEmpty { _ = wakeUp.wait(milliseconds: 2) }
        }
        try finish()
    }

    /// Feeds messages the consumer gave to the machine; whether there were any.
    @discardableResult
    private func taken(_ messages: [KafkaConsumerMessage]) throws -> Bool {
        guard !messages.isEmpty else { return false }
        metrics.consumed(messages, newest: &newestConsumed)
        try perform(machine.polled(messages))
        return true
    }

    /// Everything that arrived or came due since the last turn, fed to the machine.
    private func serve() throws {
        // Each arrival signals once; what is taken below makes the signals so far stale, and a
        // count left standing would turn every later wait into a spin.
        while wakeUp.tryWait() {}
        try perform(machine.planned(planning.take(), now: clock.now))
        for failure in registryLookups.takeFailed() {
            guard failure.error.isRetryable else { throw failure.error }
            try perform(machine.registryFailed(failure.messages, failure.error, now: clock.now))
        }
        for planned in planning.takeWithRegistry() {
            try perform(machine.plannedWithRegistry(planned.plans, for: planned.messages, now: clock.now))
        }
        try perform(machine.sendsAnswered(completions.take(), now: clock.now))
        let answers = redisStage.take()
        countClaims(answers)
        try perform(machine.redisAnswered(answers, now: clock.now))
        try perform(machine.acknowledged(acknowledgements.take(), now: clock.now))
        // A pool this worker sends to is out (its circuit open): what is taken would only be held.
        let apnsCircuit = sender.hasOpenCircuit(among: configuration.pools.values)
        status.apnsCircuitOpen.store(apnsCircuit, ordering: .relaxed)
        let now = clock.now
        try perform(machine.tick(now: now, apnsCircuitOpen: apnsCircuit))
        metrics.inFlight.record(machine.deliveriesInFlight)
        if !configuration.policies.lanes.lanes.isEmpty || !configuration.policies.throttles.isEmpty {
            metrics.lanes.waiting(queued: machine.queuedByLane, held: machine.heldByThrottle)
        }
        if now >= nextLagUpdate {
            metrics.lag(consumer.lag, newest: newestConsumed, now: planner.records.now())
            if let brokersUp = consumer.brokersUp { kafkaReached(brokersUp) }
            apnsReached(!sender.hasUnreachablePool(among: configuration.pools.values))
            metrics.ready.record(status.isReady ? 1 : 0)
            nextLagUpdate = now + configuration.lagInterval
        }
    }

    /// Counts what claim jobs found (redeliveries, deliveries a dead worker left uncertain) and what
    /// the policy stage decided (priorities lowered, interruption levels of what goes to the sender).
    private func countClaims(_ answers: [RedisStage.Outcome]) {
        for case .claimed(let claims, _) in answers {
            metrics.redeliveredReemitted.increment(by: claims.reemitted)
            metrics.redeliveredRecorded.increment(by: claims.recorded.count)
            metrics.uncertainResent.increment(by: claims.uncertainResent)
            metrics.uncertainSkipped.increment(by: claims.uncertainSkipped)
            metrics.priorityLowered.increment(by: claims.priorityLowered)
            metrics.interruptionLevels(claims.admitted)
        }
    }

    // MARK: Actions

    /// Does what the machine decided, in order, and feeds what each action gives back to the
    /// machine as an event (whose actions are done at once).
    private func perform(_ actions: [StateMachine.Action]) throws {
        for action in actions {
            switch action {
            case .plan(let messages):
                planning.start(messages, ahead: machine.partitionsAboveLightest)
            case .planWithRegistry(let messages):
                // Neither the round trip nor the enriching here: the loop goes on meanwhile.
                registryLookups.submit(messages)
            case .claim(let planned, let ahead):
                redisStage.submit(.claim(planned, ahead: ahead))
            case .record(let sent):
                redisStage.submit(.record(sent))
            case .sendWithoutClaims(let planned):
                metrics.dedupeSkipped.increment(by: planned.count)
                // The time to live needs no Redis: checked still (the other policies cannot run).
                let (live, expired) = DeliveryPolicyStage.timeToLiveOnly(planned, policies: configuration.policies,
                                                                         clock: configuration.wallClock, records: planner.records)
                let (ready, refused) = DeliveryStages.sealWithoutKeys(live, records: planner.records)
                try perform(machine.sealedWithoutKeys(ready, refused: expired + refused))
            case .recordWithoutRedis(let sent):
                var outputs: [WorkerOutput] = []
                for delivery in sent {
                    delivery.appendOutputs(to: &outputs)
                    if let tokenEvent = planner.records.tokenEvent(delivery.planned, delivery.result, removed: false) { outputs.append(tokenEvent) }
                }
                try perform(machine.decided(outputs))
            case .send(let id, let deliveries, let pool, let bulk, let holdingClaims):
                completions.start(id, deliveries, try deliveries.map { try $0.notification() }, pool: pool, bulk: bulk,
                                  holdingClaims: holdingClaims, sender: sender)
            case .produce(let outputs):
                machine.produced(try producer.send(outputs.map(\.record)), outputs)
                metrics.produced(outputs)
            case .produceAgain(let outputs):
                machine.produced(try producer.send(outputs.map(\.record)), outputs)
            case .complete(let messages):
                // The partitions' watermarks that moved go to Redis with the next record round trip,
                // so a redelivery below them emits nothing again.
                redisStage.noteRecorded(consumer.complete(messages))
            case .ping:
                do {
                    try connectedStages().ping()
                } catch {
                    guard error.isRetryable else { throw error }
                    try perform(machine.redisFailed(error, now: clock.now))
                    continue
                }
                try perform(machine.redisReached(now: clock.now))
            case .pause(let reason):
                setPaused(true, Array(consumer.assignment))
                logger.info("partitions paused", metadata: ["reason": .string(reason.rawValue),
                                                            "in_flight": .string("\(machine.deliveriesInFlight)")])
            case .resume(let keepingHeld):
                setPaused(false, Array(consumer.assignment.subtracting(keepingHeld)))
                logger.info("partitions resumed", metadata: keepingHeld.isEmpty ? [:]
                    : ["kept_held_for_lanes": .string(Self.describe(Array(keepingHeld)))])
            case .holdLane(let lane, let partitions):
                setLaneHeld(true, lane: lane, partitions)
            case .releaseLane(let lane, let partitions):
                setLaneHeld(false, lane: lane, partitions)
            case .pausePartitions(let partitions):
                setPaused(true, partitions)
            case .redisLost(let error, let waiting):
                metrics.redisAvailable.record(0)
                status.waitingForRedis.store(waiting, ordering: .releasing)
                logger.error("redis lost", metadata: ["error": .string(error.code.description),
                                                      "policy": .string(configuration.redisUnreachable.rawValue)])
            case .redisRecovered:
                metrics.redisAvailable.record(1)
                status.waitingForRedis.store(false, ordering: .releasing)
                logger.info("redis recovered")
            case .handedBack(let partitions, let messages):
                logger.info("handing back the work of partitions", metadata: ["partitions": .string(Self.describe(Array(partitions))),
                                                                              "messages": .string("\(messages)")])
            case .outputRefused(let output, let error, let source, let refusal):
                outputRefused(output, error, source: source, refusal)
            case .deliveriesDecided(let timestamps):
                let now = planner.records.now()
                for timestamp in timestamps { metrics.endToEndLatency.record(Double(max(0, now - timestamp)) / 1000) }
            case .countBatch(let deliveries):
                metrics.batchDeliveries.record(deliveries)
            case .takeTokens(let requests):
                let grants: [ThrottleGrant]
                do {
                    grants = try connectedStages().takeTokens(requests)
                } catch {
                    guard error.isRetryable else { throw error }
                    try perform(machine.tokensFailed(error, now: clock.now))
                    continue
                }
                metrics.lanes.granted(requests, grants)
                try perform(machine.tokensTaken(grants, now: clock.now))
            case .countScheduled(let perLane):
                metrics.lanes.scheduled(perLane)
            case .countRecordedBeforeClaims(let deliveries):
                metrics.recordedBeforeClaims.increment(by: deliveries)
            }
        }
    }

    /// Pauses or resumes these partitions: the worker stops or starts again taking their messages.
    /// They are held (``KafkaConsumer/hold(_:)``), not paused in librdkafka, which would drop what it
    /// prefetched of them and fetch it again on resume (docs/worker.md, "Back-pressure").
    private func setPaused(_ pause: Bool, _ partitions: [KafkaTopicPartition]) {
        setHeld(pause, partitions)
        metrics.paused.record(pause ? 1 : 0)
    }

    /// Holds or releases the partitions of a full lane, or of one that drained (``LaneHolding``);
    /// only those still assigned (a partition revoked since is the consumer's no more).
    private func setLaneHeld(_ hold: Bool, lane: String, _ partitions: [KafkaTopicPartition]) {
        let assignment = consumer.assignment
        let partitions = partitions.filter(assignment.contains)
        guard !partitions.isEmpty else { return }
        setHeld(hold, partitions)
        if hold { metrics.lanes.partitionsHeld(lane: lane, partitions.count) }
        logger.debug(hold ? "partitions held" : "partitions released",
                     metadata: ["lane": .string(lane), "partitions": .string(Self.describe(partitions))])
    }

    private func setHeld(_ hold: Bool, _ partitions: [KafkaTopicPartition]) {
        do {
            if hold { try consumer.hold(partitions) } else { try consumer.release(partitions) }
        } catch {
            logger.warning(hold ? "cannot hold partitions" : "cannot release partitions", metadata: ["error": .string("\(error)")])
        }
    }

    /// Counts and logs a record Kafka refused, and what became of it (``StateMachine/Refusal``).
    private func outputRefused(_ output: WorkerOutput?, _ error: KafkaError, source: KafkaConsumerMessage?,
                               _ refusal: StateMachine.Refusal) {
        var metadata: Logger.Metadata = ["error": .string(error.code.name)]
        if let source {
            metadata["source"] = .string("\(source.topicPartition.topic):\(source.topicPartition.partition):\(source.offset)")
        }
        guard let output else {
            // Only a report without its record (which the worker's producer never makes): given up,
            // or left to the next owner once the producer has closed or the message was handed back.
            let fate = if case .handedBack = refusal { "its message is handed back" } else { "dropped" }
            logger.error("output refused without its record; \(fate)", metadata: metadata)
            return
        }
        metadata["topic"] = .string(output.record.topic)
        metadata["size"] = .string("\(output.record.value?.count ?? 0)")
        switch refusal {
        case .handedBack:
            logger.warning("output refused after the producer closed or its partition was handed back; not produced again",
                           metadata: metadata)
        case .retrying(let firstOfRound):
            metrics.retried(output, error)
            if firstOfRound { logger.warning("output refused, retrying", metadata: metadata) }
        case .dropped:
            metrics.refused(output, error)
            logger.error("output dropped: its stand-in was refused too", metadata: metadata)
        case .replaced:
            metrics.refused(output, error)
            logger.warning("output replaced", metadata: metadata)
        case .droppedWithoutRecord:
            break  // never with a record: logged above
        }
    }

    // MARK: Kafka consumer

    private func handleConsumerEvents() {
        for event in consumerEvents.take() {
            switch event {
            case .assigned(let partitions):
                status.joined.store(true, ordering: .releasing)
                logger.info("partitions assigned", metadata: ["partitions": .string(Self.describe(partitions))])
                try? perform(machine.assigned(partitions))
            case .revoked(let partitions):
                logger.info("partitions revoked", metadata: ["partitions": .string(Self.describe(partitions))])
            case .lost(let partitions):
                logger.warning("partitions lost", metadata: ["partitions": .string(Self.describe(partitions))])
            case .error(let error):
                logger.warning("kafka consumer error", metadata: ["error": .string("\(error)")])
            }
        }
    }

    /// Called by the consumer inside `poll` (librdkafka's rebalance callback, on this thread) before
    /// it commits revoked partitions and lets them go: the work of revoked partitions is finished
    /// within `shutdown.deadline` (sends answered, outcomes acknowledged, messages completed, so the
    /// commit that follows covers them); what is left then, and all work of lost partitions, is
    /// handed back. Nothing of a handed-back message is produced by this worker afterwards.
    fileprivate func rebalancing(_ event: KafkaConsumerEvent) {
        guard !closing, rebalanceFailure == nil else { return }
        switch event {
        case .revoked(let partitions): finishOrHandBack(Set(partitions), finishing: true)
        case .lost(let partitions): finishOrHandBack(Set(partitions), finishing: false)
        case .assigned, .error: return
        }
    }

    /// Finishes the work of revoked partitions (every turn of the loop but polling, with the open
    /// batch closed at once) while it moves and the deadline allows, then hands back what is left.
    private func finishOrHandBack(_ partitions: Set<KafkaTopicPartition>, finishing: Bool) {
        guard !partitions.isEmpty else { return }
        let deadline = Deadline(after: configuration.shutdownDeadline, clock: clock)
        machine.revocationStarted()
        defer { machine.revocationEnded() }
        do {
            while finishing && machine.tracks(any: partitions) && machine.workIsMoving && !deadline.hasPassed {
                try serve()
                if machine.tracks(any: partitions) { _ = wakeUp.wait(milliseconds: 10) }
            }
        } catch {
            rebalanceFailure = error
        }
        // Handed back even after a failure: nothing of those messages may be produced any more.
        do { try perform(machine.handBack(partitions)) } catch { rebalanceFailure = rebalanceFailure ?? error }
    }

    /// The brokers the consumer reaches: none makes the worker not ready (logged once per outage).
    private func kafkaReached(_ brokersUp: Int) {
        metrics.kafkaBrokersUp.record(brokersUp)
        let unreachable = brokersUp == 0
        guard status.kafkaUnreachable.exchange(unreachable, ordering: .acquiringAndReleasing) != unreachable else { return }
        if unreachable { logger.error("kafka unreachable") } else { logger.info("kafka reachable again", metadata: ["brokers_up": .string("\(brokersUp)")]) }
    }

    /// Whether the APNs pools the worker sends to can connect: one that cannot makes the worker
    /// not ready (logged once per change).
    private func apnsReached(_ reachable: Bool) {
        metrics.apnsReachable.record(reachable ? 1 : 0)
        guard status.apnsUnreachable.exchange(!reachable, ordering: .acquiringAndReleasing) == reachable else { return }
        if reachable { logger.info("apns reachable again") } else { logger.error("apns pool cannot connect") }
    }

    /// The loop's Redis stages, connecting first if they are not yet.
    private func connectedStages() throws(RedisError) -> DeliveryStages {
        if let stages { return stages }
        let connected = try DeliveryStages(configuration: configuration, planner: planner, stores: stores, owner: owner)
        stages = connected
        return connected
    }

    // MARK: Shutdown

    /// After the drain: gives back the claims of deliveries that were claimed but will not be sent,
    /// flushes the producer, completes what Kafka acknowledged, commits and closes. Deliveries
    /// still at the sender keep their `pending` claims: APNs may have taken them, so a redelivery
    /// waits for the claim to expire rather than send at once.
    private func finish() throws {
        closing = true
        let unsent = machine.unsentAtStop()
        redisStage.stop()
        registryLookups.stop()
        if !unsent.deliveries.isEmpty && !unsent.redisOut { try? connectedStages().release(unsent.deliveries) }
        if !machine.isIdle {
            let unfinished = machine.unfinished
            logger.warning("handing back unfinished work", metadata: ["sends": .string("\(unfinished.sends)"),
                                                                      "claim_jobs": .string("\(unfinished.claimJobs)"),
                                                                      "deliveries_recording": .string("\(unfinished.deliveriesRecording)"),
                                                                      "waiting_for_redis": .string("\(unfinished.waitingForRedis)")])
        }
        // Bounded by the deadline whatever Kafka does (brokers down: the flush and the commit would
        // wait): a flush that times out leaves its messages incomplete (a redelivery reads them
        // again); the consumer still commits what was completed, and the first failure is thrown.
        var failure: (any Error)?
        do { try producer.close(timeout: closingTime()) } catch { failure = error }
        machine.producerHasClosed()
        do { try perform(machine.acknowledged(acknowledgements.take(), now: clock.now)) } catch { failure = failure ?? error }
        // The Redis stage has stopped: the watermarks of what it had not written and of what the
        // flush completed are recorded here, before the commit. Should the group refuse the commit
        // (it moved on: another member joined or left meanwhile), the partitions' next owner reads
        // those messages again and emits nothing again.
        let watermarks = redisStage.takeRecorded()
        if !watermarks.isEmpty && !unsent.redisOut { try? connectedStages().record(watermarks) }
        // Commits each partition's watermark, then closes the consumer (a static member keeps its place in the group).
        do { try consumer.close(timeout: closingTime()) } catch { failure = failure ?? error }
        status.joined.store(false, ordering: .releasing)
        metrics.ready.record(0)
        if let failure { throw failure }
        logger.info("worker stopped")
    }

    /// What is left of the shutdown deadline, at least ``closingAllowance``.
    private func closingTime() -> Duration {
        max(Self.closingAllowance, drainDeadline?.remaining ?? configuration.shutdownDeadline)
    }

    private static func describe(_ partitions: [KafkaTopicPartition]) -> String {
        partitions.map(\.description).sorted().joined(separator: ",")
    }
}

/// Reaches the ``WorkerLoop`` from the consumer's event handler, which it must be created before.
// @unchecked Sendable: `loop` is set once, in the loop's init, and used only by the rebalance
// callback, which librdkafka runs inside `poll`/`close` on the loop's own thread.
private final class RebalanceHook: @unchecked Sendable {
    weak var loop: WorkerLoop?
}
