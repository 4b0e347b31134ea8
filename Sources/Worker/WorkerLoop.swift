import APNsClient
import APNsCore
import Enrichment
import Foundation
import Kafka
import Pipeline
import Redis
import Runtime
import Telemetry

/// The worker's thread: one loop that owns the consumer and the producer, and moves batches
/// through the stages. Nothing here blocks on planning, on Redis claims and records, on the sender
/// or on Kafka's acknowledgements: messages are planned by ``PlanningTasks``, claims and records run
/// on the ``RedisStage``, sends finish through ``SendCompletions`` (which also build the outcomes),
/// acknowledgements (the producer's delivery reports) arrive in an ``Inbox``, and each turn of the
/// loop takes whatever has arrived. The loop's own Redis connection (``DeliveryStages``) serves the
/// token registry for `user` recipients, `PING` and releases.
///
/// One turn: take plans (their deliveries join the open batch), claim and record answers, finished
/// sends (record them) and acknowledgements (complete messages); retry Redis if it is out and due;
/// re-claim deferred deliveries that are due; close the open batch at `batch.size` deliveries or
/// after `batch.linger` unless `concurrency` batches are being claimed or at the sender; pause or
/// resume the partitions; then poll for more intents unless the sender or the planners have enough.
final class WorkerLoop {
    /// A polled message addressed to a user, decoded, with its place in the ledger.
    typealias MessageToPlan = (intent: Intent, message: KafkaConsumerMessage, entry: MessageLedger.EntryID)

    /// Work that needs Redis, kept whole so it can be retried as a whole after an outage.
    private enum RedisStep {
        case plan([MessageToPlan])
        case claim([PlannedDelivery])
        case record([SentDelivery])
    }

    private struct SendGroup: Equatable {
        let pool: String
        let topic: String
    }

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
    /// The loop's own Redis work: the token registry for `user` recipients, `PING`, releases; nil
    /// until Redis has answered (a worker may start while Redis is out).
    private var stages: DeliveryStages?
    private let stores: StoreAccess
    private let owner = NotificationID.random().description
    private let planner: DeliveryPlanner
    /// Claims and records.
    private let redisStage: RedisStage

    private var ledger = MessageLedger()
    private var deferred = DeferredDeliveries()
    private var outage = RedisOutage()
    /// Steps waiting for Redis to answer again, in order.
    private var waitingForRedis: [RedisStep] = []
    /// Planned deliveries not yet claimed, and when the first of them was planned.
    private var openBatch: [PlannedDelivery] = []
    private var openedAt = ContinuousClock.now
    /// Messages handed to the planners and not yet back.
    private var messagesPlanning = 0
    /// Claim jobs, and deliveries to record, at the ``RedisStage``, not yet answered (the stage may
    /// record several jobs' deliveries in one round trip).
    private var claimJobs = 0
    private var deliveriesRecording = 0
    /// The batch of each (pool, APNs topic) send at the sender, by send id.
    private var sends: [Int: Int] = [:]
    /// Batches at the sender, with how many of their sends are still out.
    private var batchesAtSender: [Int: Int] = [:]
    private var nextSend = 0
    private var nextBatch = 0
    private var paused = false
    private var nextLagUpdate = ContinuousClock.now
    /// The Kafka timestamp of the newest message taken from each partition (lag in time).
    private var newestConsumed: [KafkaTopicPartition: Int64] = [:]
    /// Records Kafka refused for a reason that may pass (a timeout, a broker away), produced again
    /// as they were at `outputRetryAt`.
    private var outputsToRetry: [WorkerOutput] = []
    private var outputRetryAt: ContinuousClock.Instant?
    /// Rounds of retried records since Kafka last acknowledged one: the delay doubles with each,
    /// from 100 ms to 5 s.
    private var outputRetryRounds = 0
    /// Set once the producer is closed: a record refused then cannot be sent again, and its
    /// message is left incomplete (handed back).
    private var producerClosed = false
    /// Set once the consumer closes: its final revoke finds the work already finished or handed back.
    private var closing = false
    /// An error met inside the rebalance callback, which cannot throw; thrown once `poll` returns.
    private var rebalanceFailure: (any Error)?
    /// When stopping began plus `shutdown.deadline`: the drain ends then, and flushing and closing
    /// get what is left of it (at least ``closingAllowance``).
    private var drainDeadline: ContinuousClock.Instant?
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
        let acknowledgements = Inbox<KafkaDeliveryReport>(wakeUp: wakeUp)
        self.acknowledgements = acknowledgements
        // The loop's thread never waits for room in librdkafka's queue: a record refused because the
        // queue is full comes back at once as a passing refusal, retried after a back-off while the
        // partitions are paused (``refused(_:_:)``, ``updatePausing()``).
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
        stores = StoreAccess(configuration.stores, idempotency: configuration.idempotency, owner: owner)
        planner = DeliveryPlanner(configuration: configuration, catalog: catalog)
        redisStage = RedisStage(configuration: configuration, planner: planner, stores: stores, owner: owner, wakeUp: wakeUp)
        completions = SendCompletions(records: planner.records, wakeUp: wakeUp)
        planning = PlanningTasks(planner: planner, wakeUp: wakeUp)
        rebalanceHook.loop = self
    }

    func run() throws {
        logger.info("worker started", metadata: ["topics": .string(configuration.consumer.topics.joined(separator: ",")),
                                                 "group": .string(configuration.consumer.groupID)])
        do {
            _ = try connectedStages()
        } catch {
            // Redis out at start: the worker waits for it like for any outage.
            guard error.isRetryable else { throw error }
            redisFailed(error)
        }
        while true {
            if drainDeadline == nil && status.stopping.load(ordering: .acquiring) {
                drainDeadline = .now + configuration.shutdownDeadline
                logger.info("worker stopping", metadata: ["deadline": "\(configuration.shutdownDeadline)"])
            }
            try serve(draining: drainDeadline != nil)
            if let drainDeadline {
                if ledger.isEmpty || ContinuousClock.now >= drainDeadline { break }
                _ = wakeUp.wait(milliseconds: 10)
                continue
            }
            guard batchesInProgress < configuration.concurrency && messagesPlanning < 2 * configuration.batchSize else {
                _ = wakeUp.wait(milliseconds: 5)
                continue
            }
            let messages = consumer.poll(maxMessages: max(1, configuration.batchSize - openBatch.count), timeout: pollTimeout())
            if let rebalanceFailure { throw rebalanceFailure }
            handleConsumerEvents()
            if !messages.isEmpty {
                metrics.consumed(messages, newest: &newestConsumed)
                messagesPlanning += messages.count
                planning.start(messages.map { ($0, ledger.open($0)) })
            }
        }
        try finish()
    }

    /// Everything that arrived or came due since the last turn.
    private func serve(draining: Bool) throws {
        // Each arrival signals once; what is taken below makes the signals so far stale, and a
        // count left standing would turn every later wait into a spin.
        while wakeUp.wait(milliseconds: 0) {}
        // Messages that address users are planned again together, with one registry round trip.
        var needRegistry: [MessageToPlan] = []
        for planned in planning.take() {
            messagesPlanning -= 1
            switch planned.plan {
            case .planned: try accept(planned.plan, entry: planned.entry)
            case .needsRegistry(let intent): needRegistry.append((intent, planned.message, planned.entry))
            }
        }
        if !needRegistry.isEmpty { try submit(.plan(needRegistry)) }
        // The answers of every send that arrived since the last turn go to Redis as one job.
        let answered = try completions.take().flatMap { try recordSend($0) }
        if !answered.isEmpty { try submit(.record(answered)) }
        for outcome in redisStage.take() { try handle(outcome) }
        try acknowledge(acknowledgements.take())
        let now = ContinuousClock.now
        if let due = outputRetryAt, now >= due { try retryOutputs() }
        if outage.isOut && now >= outage.nextAttempt { try retryRedis() }
        if !outage.isOut, let due = deferred.nextDue, due <= now {
            try submit(.claim(deferred.takeDue(at: now)))
        }
        if !openBatch.isEmpty && (draining || (batchesInProgress < configuration.concurrency
            && (openBatch.count >= configuration.batchSize || now >= openedAt + configuration.batchLinger))) {
            try closeBatch()
        }
        updatePausing()
        if now >= nextLagUpdate {
            metrics.lag(consumer.lag, newest: newestConsumed, now: OutputRecords.now())
            if let brokersUp = consumer.brokersUp { kafkaReached(brokersUp) }
            apnsReached(!sender.hasUnreachablePool(among: configuration.pools.values))
            metrics.ready.record(status.isReady ? 1 : 0)
            nextLagUpdate = now + configuration.lagInterval
        }
    }

    /// Batches being claimed or at the sender: what `concurrency` bounds.
    private var batchesInProgress: Int { claimJobs + batchesAtSender.count }

    /// A short wait while other work is out (what it hands back is taken between polls); the
    /// configured poll timeout when there is nothing else to do.
    private func pollTimeout() -> Duration {
        if !openBatch.isEmpty { return min(.milliseconds(2), max(.zero, openedAt + configuration.batchLinger - .now)) }
        if !ledger.isEmpty { return .milliseconds(2) }
        return configuration.pollTimeout
    }

    // MARK: Stages

    /// A message's plan: its records decided now are produced, its deliveries join the open batch.
    private func accept(_ plan: DeliveryPlanner.Plan, entry: MessageLedger.EntryID) throws {
        // A message handed back (its partition revoked) while it was being planned goes no further.
        guard case .planned(let deliveries, let outputs) = plan, ledger.isTracked(entry) else { return }
        if !deliveries.isEmpty {
            if openBatch.isEmpty { openedAt = .now }
            ledger.hold(entry, deliveries: deliveries.count)
            openBatch += deliveries
        }
        try produce(outputs)
        if let complete = ledger.finishPlanning(entry) { self.complete([complete]) }
    }

    /// Claims and sends the open batch.
    private func closeBatch() throws {
        guard !openBatch.isEmpty else { return }
        let batch = openBatch
        openBatch = []
        try submit(.claim(batch))
    }

    /// Runs a step now, or keeps it (or the part of it that needs Redis) for when Redis answers again.
    private func submit(_ step: RedisStep) throws {
        if outage.isOut {
            let (now, later) = splitForOutage(step)
            if let later { waitingForRedis.append(later) }
            if let now { try perform(now) }
            return
        }
        do {
            try perform(step)
        } catch let error as RedisError where error.isRetryable {
            redisFailed(error)
            try submit(step)
        }
    }

    /// What of a step can run while Redis is out, and what must wait. Under `pause`, nothing runs.
    /// Under `fail_open`, planning runs (a user-addressed intent then waits for the registry),
    /// claiming becomes sending without claims, and recording produces the records of every
    /// delivery that needs no registry clean-up at once (counted when a claim is left to settle),
    /// keeping only the settling of their claims for later.
    private func splitForOutage(_ step: RedisStep) -> (now: RedisStep?, later: RedisStep?) {
        guard configuration.redisUnreachable == .failOpen else { return (nil, step) }
        guard case .record(let sent) = step else { return (step, nil) }
        let free = sent.filter { !$0.needsRegistry && !$0.onlyClaimLeft }
        let claimsLeft = free.filter(\.planned.holdsClaim)
        metrics.recordedBeforeClaims.increment(by: claimsLeft.count)
        let later = sent.filter { $0.needsRegistry || $0.onlyClaimLeft } + claimsLeft.map { $0.claimLeft() }
        return (free.isEmpty ? nil : .record(free), later.isEmpty ? nil : .record(later))
    }

    /// Does one step; a Redis failure leaves nothing half-done that a repetition would not redo.
    private func perform(_ step: RedisStep) throws {
        switch step {
        case .plan(let messages):
            // Out of Redis, every one of them still needs the registry.
            guard !outage.isOut else {
                waitingForRedis.append(step)
                return
            }
            for (plan, planning) in zip(try connectedStages().plan(messages), messages) { try accept(plan, entry: planning.entry) }
        case .claim(let planned):
            guard !outage.isOut else {
                // fail_open: the claims and collapse windows are skipped, and no encryption key can be read.
                metrics.dedupeSkipped.increment(by: planned.count)
                let (ready, refused) = DeliveryStages.sealWithoutKeys(planned, records: planner.records)
                try produce(refused)
                try send(ready)
                return
            }
            claimJobs += 1
            redisStage.submit(.claim(planned))
        case .record(let sent):
            guard !outage.isOut else {
                // fail_open: what ``splitForOutage(_:)`` let through is produced without Redis.
                try produce(sent.flatMap { delivery in
                    delivery.outputs + [planner.records.tokenEvent(delivery.planned, delivery.result, removed: false)].compactMap { $0 }
                })
                return
            }
            deliveriesRecording += sent.count
            redisStage.submit(.record(sent))
        }
    }

    /// A claim or record job's answer from the ``RedisStage``. A job that met a Redis outage is
    /// submitted again, which under the outage keeps it (or its part that needs Redis) for later.
    private func handle(_ outcome: RedisStage.Outcome) throws {
        switch outcome {
        case .claimed, .failed(.claim, _): claimJobs -= 1
        case .recorded(let sent, _), .failed(.record(let sent), _): deliveriesRecording -= sent.count
        }
        switch outcome {
        case .claimed(let claims):
            // Claims taken for handed-back messages are still sent and settled (outputs aside): the
            // next owner meets them settled and emits their outcome, once.
            let deferring = claims.deferred.filter { ledger.isTracked($0.entry) }
            if !deferring.isEmpty { deferred.add(deferring, until: .now + configuration.pendingRecheckInterval) }
            metrics.redeliveredReemitted.increment(by: claims.reemitted)
            metrics.redeliveredRecorded.increment(by: claims.recorded.count)
            metrics.uncertainResent.increment(by: claims.uncertainResent)
            metrics.uncertainSkipped.increment(by: claims.uncertainSkipped)
            let recorded = claims.recorded.compactMap { ledger.decideWithoutOutput($0.entry) }
            if !recorded.isEmpty { complete(recorded) }
            try produce(claims.outputs)
            try send(claims.admitted)
        case .recorded(let sent, let tokenEvents):
            try produce(sent.flatMap(\.outputs) + tokenEvents)
        case .failed(let job, let error):
            guard let error = error as? RedisError, error.isRetryable else { throw error }
            redisFailed(error)
            switch job {
            case .claim(let planned): try submit(.claim(planned))
            case .record(let sent): try submit(.record(sent))
            }
        }
    }

    /// Hands the deliveries to the sender, one send per (pool, APNs topic), without waiting.
    private func send(_ deliveries: [PlannedDelivery]) throws {
        guard !deliveries.isEmpty else { return }
        let batch = nextBatch
        nextBatch += 1
        metrics.batchDeliveries.record(deliveries.count)
        let groups = Self.sendGroups(deliveries)
        batchesAtSender[batch] = groups.count
        for (group, deliveries) in groups {
            let id = nextSend
            nextSend += 1
            sends[id] = batch
            completions.start(id, deliveries, try deliveries.map { try $0.notification() }, pool: group.pool, sender: sender)
        }
    }

    /// The deliveries by (pool, APNs topic), in the order the groups first appear. A batch has few
    /// groups, and comparing a delivery's two strings with the last group's (most often the same
    /// strings) costs less than hashing them for every delivery.
    private static func sendGroups(_ deliveries: [PlannedDelivery]) -> [(group: SendGroup, deliveries: [PlannedDelivery])] {
        // Most often one app's deliveries to one pool: the batch is the one group as it is, without
        // its deliveries appended (and retained) one by one into a new array.
        if let first = deliveries.first,
           deliveries.allSatisfy({ $0.pool == first.pool && $0.delivery.topic == first.delivery.topic }) {
            return [(SendGroup(pool: first.pool, topic: first.delivery.topic), deliveries)]
        }
        var groups: [(group: SendGroup, deliveries: [PlannedDelivery])] = []
        var last = 0
        for delivery in deliveries {
            let group = SendGroup(pool: delivery.pool, topic: delivery.delivery.topic)
            if groups.indices.contains(last), groups[last].group == group {
                groups[last].deliveries.append(delivery)
            } else if let index = groups.firstIndex(where: { $0.group == group }) {
                groups[index].deliveries.append(delivery)
                last = index
            } else {
                groups.append((group, [delivery]))
                last = groups.count - 1
            }
        }
        return groups
    }

    /// A send's answers so far, to record; its last frees its place.
    private func recordSend(_ completion: SendCompletions.Completion) throws -> [SentDelivery] {
        // A send abandoned at the shutdown deadline may still answer: nothing waits for it.
        guard let batch = sends[completion.send] else { return [] }
        if completion.isLast {
            sends[completion.send] = nil
            if let remaining = batchesAtSender[batch] {
                batchesAtSender[batch] = remaining > 1 ? remaining - 1 : nil
            }
        }
        return try completion.delivered.get()
    }

    // MARK: Kafka

    /// Produces records without waiting; their acknowledgements arrive through ``acknowledge(_:)``.
    /// Records of messages handed back (their partition revoked or lost) are not produced: the
    /// partition's next owner reads those messages again and emits them.
    private func produce(_ outputs: [WorkerOutput]) throws {
        let outputs = outputs.allSatisfy({ ledger.isTracked($0.entry) }) ? outputs : outputs.filter { ledger.isTracked($0.entry) }
        guard !outputs.isEmpty else { return }
        let ids = try producer.send(outputs.map(\.record))
        for (id, output) in zip(ids, outputs) { ledger.expect(id, output) }
        metrics.produced(outputs)
    }

    /// Produces records again, in the place of refused ones (not counted again).
    private func produceAgain(_ outputs: [WorkerOutput]) throws {
        let ids = try producer.send(outputs.map(\.record))
        for (id, output) in zip(ids, outputs) { ledger.expectAgain(id, output) }
    }

    /// Completes the messages whose every record Kafka now has; a record Kafka refused is sent
    /// again or replaced (``refused(_:_:)``), never the end of the worker.
    private func acknowledge(_ reports: [KafkaDeliveryReport]) throws {
        guard !reports.isEmpty else { return }
        let now = OutputRecords.now()
        var complete: [KafkaConsumerMessage] = []
        for report in reports {
            if case .failure(let error) = report.result {
                if let given = try refused(report.id, error, record: report.refusedMessage) { complete.append(given) }
                continue
            }
            outputRetryRounds = 0
            guard let acknowledged = ledger.acknowledge(report.id) else { continue }
            if acknowledged.decidedDelivery, let timestamp = acknowledged.message.timestamp {
                metrics.endToEndLatency.record(Double(max(0, now - timestamp)) / 1000)
            }
            if acknowledged.completed { complete.append(acknowledged.message) }
        }
        if !complete.isEmpty { self.complete(complete) }
    }

    /// A record Kafka refused. Refused for good (too large, malformed: ``KafkaError/isPermanent``),
    /// it is replaced by its stand-in (``WorkerOutput/standIn(after:)``); a stand-in refused too is
    /// given up, and its message completes without it. Refused for a reason that may pass, the same
    /// record is produced again after a delay. Returns a message that giving up completed.
    private func refused(_ id: KafkaProducerMessageID, _ error: KafkaError, record: KafkaProducerMessage?) throws -> KafkaConsumerMessage? {
        guard let expected = ledger.refused(id) else { return nil }
        guard let record else {
            // Every failed report of the worker's producer carries its record; without one there is
            // nothing to send again or replace.
            logger.error("output refused without its record; dropped", metadata: ["error": .string(error.code.name)])
            return ledger.giveUp(expected)
        }
        let output = expected.output(record: record)
        var metadata: Logger.Metadata = ["topic": .string(output.record.topic), "error": .string(error.code.name),
                                         "size": .string("\(output.record.value?.count ?? 0)")]
        if let message = ledger.message(of: output.entry) {
            metadata["source"] = .string("\(message.topicPartition.topic):\(message.topicPartition.partition):\(message.offset)")
        }
        guard !producerClosed else {
            logger.warning("output refused after the producer closed; its message is handed back", metadata: metadata)
            return nil
        }
        guard error.isPermanent else {
            metrics.retried(output, error)
            if outputsToRetry.isEmpty { logger.warning("output refused, retrying", metadata: metadata) }
            outputsToRetry.append(output)
            outputRetryAt = outputRetryAt ?? .now + min(.seconds(5), .milliseconds(100) * (1 << min(outputRetryRounds, 6)))
            return nil
        }
        metrics.refused(output, error)
        if output.isStandIn {
            logger.error("output dropped: its stand-in was refused too", metadata: metadata)
            return ledger.giveUp(expected)
        }
        logger.warning("output replaced", metadata: metadata)
        try produceAgain([output.standIn(after: error)])
        return nil
    }

    /// Produces the records refused for a reason that may pass again, as they were.
    private func retryOutputs() throws {
        let outputs = outputsToRetry
        outputsToRetry = []
        outputRetryAt = nil
        outputRetryRounds += 1
        try produceAgain(outputs)
    }

    /// Completes messages whose every output Kafka has; the partitions' watermarks that moved go to
    /// Redis with the next record round trip, so a redelivery below them emits nothing again.
    private func complete(_ messages: [KafkaConsumerMessage]) {
        redisStage.noteRecorded(consumer.complete(messages))
    }

    private func handleConsumerEvents() {
        for event in consumerEvents.take() {
            switch event {
            case .assigned(let partitions):
                status.joined.store(true, ordering: .releasing)
                logger.info("partitions assigned", metadata: ["partitions": .string(Self.describe(partitions))])
                if paused && !partitions.isEmpty { try? consumer.pause(partitions) }
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

    private func finishOrHandBack(_ partitions: Set<KafkaTopicPartition>, finishing: Bool) {
        guard !partitions.isEmpty else { return }
        let deadline = ContinuousClock.now + configuration.shutdownDeadline
        do {
            while finishing && ledger.tracks(any: partitions) && workIsMoving && ContinuousClock.now < deadline {
                try serve(draining: true)
                if ledger.tracks(any: partitions) { _ = wakeUp.wait(milliseconds: 10) }
            }
        } catch {
            rebalanceFailure = error
        }
        handBack(partitions)
    }

    /// Whether anything is still under way that finishing can wait for: planning, a batch to claim,
    /// Redis jobs, sends, records not yet acknowledged. Deliveries deferred behind another
    /// attempt's claim are not waited for (that can take `dedupe.pending_ttl`).
    private var workIsMoving: Bool {
        messagesPlanning > 0 || !openBatch.isEmpty || claimJobs > 0 || deliveriesRecording > 0 || !sends.isEmpty || ledger.awaitsAcknowledgements
    }

    /// Stops working for the messages of `partitions`: they leave the ledger (their next owner reads
    /// them again); their deliveries not yet claimed — in the open batch, deferred, or waiting for
    /// Redis — are dropped. Claims already taken stay with their deliveries, which are sent and
    /// settled without outputs.
    private func handBack(_ partitions: Set<KafkaTopicPartition>) {
        let messages = ledger.handBack(partitions)
        guard messages > 0 else { return }
        let ledger = ledger
        openBatch.removeAll { !ledger.isTracked($0.entry) }
        deferred.removeAll { !ledger.isTracked($0.entry) }
        waitingForRedis = waitingForRedis.compactMap { step in
            switch step {
            case .plan(let messages):
                let kept = messages.filter { ledger.isTracked($0.entry) }
                return kept.isEmpty ? nil : .plan(kept)
            case .claim(let planned):
                let kept = planned.filter { ledger.isTracked($0.entry) }
                return kept.isEmpty ? nil : .claim(kept)
            case .record: return step
            }
        }
        logger.info("handing back the work of partitions", metadata: ["partitions": .string(Self.describe(Array(partitions))),
                                                                      "messages": .string("\(messages)")])
    }

    /// Pauses the partitions while deliveries in flight reach `max_in_flight` or work waits for
    /// Redis under the `pause` policy; resumes them otherwise. The loop keeps polling either way,
    /// so the consumer stays in its group.
    private func updatePausing() {
        let waitingMessages = waitingForRedis.reduce(0) { count, step in
            if case .plan(let messages) = step { count + messages.count } else { count }
        }
        let saturated = ledger.deliveriesInFlight + waitingMessages >= configuration.maximumInFlight
        let redisWait = outage.isOut && configuration.redisUnreachable == .pause
        // A pool this worker sends to is out (its circuit open): what is taken would only be held.
        let apnsCircuit = sender.hasOpenCircuit(among: configuration.pools.values)
        status.apnsCircuitOpen.store(apnsCircuit, ordering: .relaxed)
        // Kafka refused records for a reason that may pass (a full queue, a broker away): more work
        // would only add to them.
        let outputsWaiting = !outputsToRetry.isEmpty
        let pause = saturated || redisWait || apnsCircuit || outputsWaiting
        metrics.inFlight.record(ledger.deliveriesInFlight)
        guard pause != paused else { return }
        let partitions = Array(consumer.assignment)
        do {
            if pause { try consumer.pause(partitions) } else { try consumer.resume(partitions) }
        } catch {
            logger.warning(pause ? "cannot pause partitions" : "cannot resume partitions", metadata: ["error": .string("\(error)")])
        }
        paused = pause
        metrics.paused.record(pause ? 1 : 0)
        if pause {
            let reason = redisWait ? "redis" : apnsCircuit ? "apns_circuit" : outputsWaiting ? "kafka_producer" : "max_in_flight"
            logger.info("partitions paused", metadata: ["reason": .string(reason),
                                                        "in_flight": .string("\(ledger.deliveriesInFlight)")])
        } else {
            logger.info("partitions resumed")
        }
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

    // MARK: Redis outage

    private func redisFailed(_ error: RedisError) {
        guard outage.failed(at: .now) else { return }
        metrics.redisAvailable.record(0)
        status.waitingForRedis.store(configuration.redisUnreachable == .pause, ordering: .releasing)
        logger.error("redis lost", metadata: ["error": .string(error.code.description), "policy": .string(configuration.redisUnreachable.rawValue)])
    }

    /// Asks Redis whether it is back (`PING`); if so, runs the steps that waited, in order (claims
    /// and records go to the ``RedisStage`` again, and come back through ``handle(_:)`` if they fail
    /// once more). A step that fails here puts itself and the rest back.
    private func retryRedis() throws {
        do {
            try connectedStages().ping()
        } catch {
            guard error.isRetryable else { throw error }
            redisFailed(error)
            return
        }
        outageAnswered()
        let steps = waitingForRedis
        waitingForRedis = []
        for (index, step) in steps.enumerated() {
            do {
                try perform(step)
            } catch let error as RedisError where error.isRetryable {
                redisFailed(error)
                waitingForRedis = Array(steps[index...]) + waitingForRedis
                return
            }
        }
    }

    private func outageAnswered() {
        guard outage.answered() else { return }
        metrics.redisAvailable.record(1)
        status.waitingForRedis.store(false, ordering: .releasing)
        logger.info("redis recovered")
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
        let unsent = waitingForRedis.flatMap { step -> [PlannedDelivery] in
            if case .claim(let planned) = step { planned } else { [] }
        }
        redisStage.stop()
        if !unsent.isEmpty && !outage.isOut { try? connectedStages().release(unsent) }
        if !ledger.isEmpty {
            logger.warning("handing back unfinished work", metadata: ["sends": .string("\(sends.count)"), "claim_jobs": .string("\(claimJobs)"),
                                                                      "deliveries_recording": .string("\(deliveriesRecording)"),
                                                                      "waiting_for_redis": .string("\(waitingForRedis.count)")])
        }
        // Bounded by the deadline whatever Kafka does (brokers down: the flush and the commit would
        // wait): a flush that times out leaves its messages incomplete (a redelivery reads them
        // again); the consumer still commits what was completed, and the first failure is thrown.
        var failure: (any Error)?
        do { try producer.close(timeout: closingTime()) } catch { failure = error }
        producerClosed = true
        do { try acknowledge(acknowledgements.take()) } catch { failure = failure ?? error }
        // Commits each partition's watermark, then leaves the group.
        do { try consumer.close(timeout: closingTime()) } catch { failure = failure ?? error }
        status.joined.store(false, ordering: .releasing)
        metrics.ready.record(0)
        if let failure { throw failure }
        logger.info("worker stopped")
    }

    /// What is left of the shutdown deadline, at least ``closingAllowance``.
    private func closingTime() -> Duration {
        max(Self.closingAllowance, (drainDeadline ?? .now + configuration.shutdownDeadline) - .now)
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
