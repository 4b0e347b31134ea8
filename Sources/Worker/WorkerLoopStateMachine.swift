import Kafka
import Pipeline
import PushlineConfiguration
import Redis
import Runtime

extension WorkerLoop {
    /// The worker's bookkeeping, apart from everything it talks to: the ``MessageLedger``, the open
    /// batch, deliveries deferred behind another attempt's claim, Redis outages and the steps that
    /// wait for Redis, the batches being claimed and at the sender, records to produce again, and
    /// whether the partitions are paused. (In the way swift-kafka-client's consumer and NIO's
    /// channel handlers keep theirs.)
    ///
    /// Each event — messages polled, plans ready, a registry round trip answered or failed, claims
    /// and records answered, sends answered, outputs acknowledged or refused, Redis lost or back,
    /// partitions assigned or handed back, a drain requested, a timer's `tick` — is a mutating
    /// method that returns the ``Action``s the ``WorkerLoop`` then performs: it polls Kafka, runs
    /// the planners and the Redis round trips, sends, produces, commits, pauses and resumes, logs
    /// and counts, and feeds what those give back as further events. The machine does no I/O and
    /// reads no clock: the time comes with the events that need it.
    struct StateMachine {
        /// Work that needs Redis, kept whole so it can be retried as a whole after an outage.
        enum RedisStep {
            case plan([MessageToPlan])
            /// `ahead`: a batch of the lanes above the lightest, claimed ahead of the others at the
            /// ``RedisStage``, also when it is claimed again after an outage.
            case claim([PlannedDelivery], ahead: Bool)
            case record([SentDelivery])
        }

        private struct SendGroup: Equatable {
            let pool: String
            let topic: String
            /// Of the lightest lane while there are lanes above it: the sender lets the others go first.
            let bulk: Bool
        }

        private let batchSize: Int
        private let batchLinger: Duration
        private let concurrency: Int
        private let maximumInFlight: Int
        private let redisUnreachable: WorkerConfiguration.RedisUnreachablePolicy
        private let pendingRecheckInterval: Duration
        private let pollTimeout: Duration

        private var ledger = MessageLedger()
        private var deferred = DeferredDeliveries()
        private var outage = RedisOutage()
        /// Steps waiting for Redis to answer again, in order.
        private var waitingForRedis: [RedisStep] = []
        /// Planned deliveries not yet claimed, by priority lane (one lane, first in first out, when
        /// the pipeline has none), and when the first of them was planned: the open batch, and with
        /// lanes up to `read_ahead` more (docs/policies.md).
        private var lanes: LaneScheduler<PlannedDelivery>
        private let laneNames: LanesConfiguration
        /// Planned deliveries that may wait beyond the batch being filled: `lanes.read_ahead` with
        /// lanes, 0 without.
        private let readAhead: Int
        /// (Set whenever a delivery opens a batch; read only while one is open.)
        private var openedAt = MonotonicClock.Instant(nanoseconds: 0)
        /// Batch slots of the lightest lanes: fewer while a lane above is active, with
        /// `lanes.lightest_batches` (``LightestSlots``).
        private var lightestSlots: LightestSlots
        /// Partitions held because a lane is full (``LaneHolding``).
        private var laneHolding: LaneHolding
        /// Planned deliveries a throttle holds until its token bucket lets them go (docs/policies.md).
        private var throttle: ThrottleGate<PlannedDelivery>
        /// Messages handed to the planners and not yet back.
        private var messagesPlanning = 0
        /// The partitions whose latest planned delivery went to a lane above the lightest: their
        /// next messages are planned ahead of the others (``PlanningTasks/start(_:ahead:)``).
        private(set) var partitionsAboveLightest: Set<KafkaTopicPartition> = []
        /// Claim jobs, and deliveries to record, at the ``RedisStage``, not yet answered (the stage
        /// may record several jobs' deliveries in one round trip).
        private var claimJobs = 0
        /// Claim jobs at the ``RedisStage`` that are batches of the lanes above the lightest (the
        /// stage runs them ahead, so their answers come back out of submission order); and their
        /// batches at the sender.
        private var priorityClaimJobs = 0
        private var priorityBatchesAtSender: Set<Int> = []
        private var deliveriesRecording = 0
        /// The batch of each (pool, APNs topic) send at the sender, by send id.
        private var sends: [Int: Int] = [:]
        /// Batches at the sender, with how many of their sends are still out.
        private var batchesAtSender: [Int: Int] = [:]
        private var nextSend = 0
        private var nextBatch = 0
        private(set) var paused = false
        /// Records Kafka refused for a reason that may pass, waiting to be produced again.
        private var outputRetries = OutputRetries()
        /// Set once the producer is closed: a record refused then cannot be sent again, and its
        /// message is left incomplete (handed back).
        private var producerClosed = false
        /// Set once stopping began: the open batch closes at once, and nothing more is polled.
        private var draining = false
        /// Set while the work of revoked partitions is being finished: the open batch closes at once.
        private var finishingRevocation = false

        init(configuration: WorkerConfiguration) {
            batchSize = configuration.batchSize
            batchLinger = configuration.batchLinger
            concurrency = configuration.concurrency
            maximumInFlight = configuration.maximumInFlight
            redisUnreachable = configuration.redisUnreachable
            pendingRecheckInterval = configuration.pendingRecheckInterval
            pollTimeout = configuration.pollTimeout
            laneNames = configuration.policies.lanes
            lanes = LaneScheduler(weights: configuration.policies.lanes.lanes.isEmpty ? [1] : configuration.policies.lanes.lanes.map(\.weight))
            readAhead = configuration.policies.lanes.lanes.isEmpty ? 0 : configuration.policies.lanes.readAhead
            lightestSlots = LightestSlots(concurrency: configuration.concurrency, bound: configuration.policies.lanes.lightestBatches,
                                          quiet: configuration.policies.lanes.lightestQuiet)
            laneHolding = LaneHolding(lanes: configuration.policies.lanes.lanes.count,
                                      highWater: max(configuration.policies.lanes.readAhead, configuration.batchSize))
            throttle = ThrottleGate(throttles: configuration.policies.throttles) { throttle, delivery in
                switch throttle.scope {
                case .app: delivery.app == throttle.value
                case .campaign: delivery.delivery.policy.campaign == throttle.value
                case .pool: delivery.pool == throttle.value
                }
            }
        }

        // MARK: Questions the loop asks

        /// Whether no message has work outstanding.
        var isIdle: Bool { ledger.isEmpty }

        /// Deliveries taken and not yet recorded (`pushline_inflight_deliveries`).
        var deliveriesInFlight: Int { ledger.deliveriesInFlight }

        /// Batches of every lane being claimed or at the sender (`concurrency` bounds the lightest
        /// lanes' and the lanes above's apart: ``mayCloseLightestBatch``, ``mayClosePriorityBatch``).
        private var batchesInProgress: Int { claimJobs + batchesAtSender.count }

        /// Batches of the lanes above the lightest being claimed or at the sender.
        private var priorityBatchesInProgress: Int {
            priorityClaimJobs + priorityBatchesAtSender.count
        }

        /// Whether the lanes above the lightest may close a batch: fewer than `concurrency` of their
        /// batches are out. They have `concurrency` batch slots of their own beside the lightest
        /// lanes' (docs/policies.md), so under a bulk backlog a delivery of theirs waits neither for
        /// a bulk batch to be answered nor for the previous batch of its own lane.
        private var mayClosePriorityBatch: Bool {
            priorityBatchesInProgress < concurrency
        }

        /// Whether the lightest lanes may close a batch: fewer than `concurrency` of their batches
        /// are out (the lanes above's slots are never theirs), or fewer than `lightest_batches`
        /// while a lane above is active (``LightestSlots``).
        private var mayCloseLightestBatch: Bool {
            batchesInProgress - priorityBatchesInProgress < lightestSlots.current
        }

        /// Whether the loop may poll for more: the lightest lanes have a free batch slot
        /// (``mayCloseLightestBatch``: without lanes of different weights, fewer than `concurrency`
        /// batches of any kind are being claimed or at the sender) — or, with lanes, fewer than
        /// `read_ahead` deliveries wait beyond the open batch, or a full lane's partitions are held,
        /// so what a poll brings is for the other lanes — and fewer than two polls' worth of
        /// messages are being planned. The lanes above's batches do not count: they hold slots of
        /// their own, so one in flight does not keep the bulk from being read while a bulk slot is
        /// free; and while they may not poll, the lanes above's partitions are still read
        /// (``aheadLimit``).
        var mayPoll: Bool {
            !draining && (mayCloseLightestBatch || lanes.count < readAhead || laneHolding.isHolding)
                && messagesPlanning < 2 * batchSize
        }

        /// How many messages the loop may take from ``partitionsAboveLightest`` while it may not
        /// poll (``mayPoll``), so that the lanes above do not wait for the bulk's planning or batch
        /// slots: `batch.size` while fewer than three polls' worth of messages are being planned
        /// (one more than a poll needs), none while draining, paused or without such partitions.
        var aheadLimit: Int {
            draining || paused || partitionsAboveLightest.isEmpty ? 0 : max(0, min(batchSize, 3 * batchSize - messagesPlanning))
        }

        /// How many messages the next poll may take: `batch.size` minus what waits for a batch
        /// beyond `read_ahead` (0 without lanes); `batch.size` while a full lane's partitions are held.
        var pollLimit: Int {
            laneHolding.isHolding ? batchSize : max(1, min(batchSize, batchSize + readAhead - lanes.count))
        }

        /// Planned deliveries waiting for a batch in each lane (one without lanes), and held by each
        /// throttle (`pushline_lane_queued`, `pushline_throttle_waiting`).
        var queuedByLane: [Int] { (0..<lanes.weights.count).map(lanes.count(inLane:)) }
        var heldByThrottle: [Int] { throttle.heldByThrottle }

        /// Whether the open batch waits for a batch slot: no lane with work may close a batch
        /// (``mayClosePriorityBatch``, ``mayCloseLightestBatch``). Reading ahead then,
        /// the loop takes what a poll has ready without waiting for Kafka, and when it brings
        /// nothing waits for what frees a slot (the loop's wake-up) instead of polling again at once.
        var waitsForSlot: Bool {
            !lanes.isEmpty && !draining && !finishingRevocation
                && (lanes.priorityCount == 0 || !mayClosePriorityBatch)
                && (lanes.count == lanes.priorityCount || !mayCloseLightestBatch)
        }

        /// A short wait while other work is out (what it hands back is taken between polls); the
        /// configured poll timeout when there is nothing else to do; none while the open batch
        /// waits for a slot (``waitsForSlot``).
        func pollTimeout(now: MonotonicClock.Instant) -> Duration {
            if waitsForSlot { return .zero }
            if !lanes.isEmpty { return min(.milliseconds(2), max(.zero, openedAt + batchLinger - now)) }
            if !ledger.isEmpty { return .milliseconds(2) }
            return pollTimeout
        }

        /// The message of a ledger entry still tracked (for log lines).
        func message(of entry: MessageLedger.EntryID) -> KafkaConsumerMessage? {
            ledger.message(of: entry)
        }

        /// Whether any message of `partitions` still has work outstanding.
        func tracks(any partitions: Set<KafkaTopicPartition>) -> Bool {
            ledger.tracks(any: partitions)
        }

        /// Whether anything is still under way that finishing can wait for: planning, a batch to
        /// claim, Redis jobs, sends, records not yet acknowledged (produced, or refused and waiting
        /// to be produced again). Deliveries deferred behind another attempt's claim are not
        /// waited for (that can take `dedupe.pending_ttl`), nor deliveries a throttle holds
        /// (unclaimed: handing them back costs nothing).
        var workIsMoving: Bool {
            messagesPlanning > 0 || !lanes.isEmpty || claimJobs > 0 || deliveriesRecording > 0 || !sends.isEmpty
                || ledger.awaitsAcknowledgements || !outputRetries.isEmpty
        }

        /// What is still under way, for the log line of a stop that hands work back.
        var unfinished: (sends: Int, claimJobs: Int, deliveriesRecording: Int, waitingForRedis: Int) {
            (sends.count, claimJobs, deliveriesRecording, waitingForRedis.count)
        }

        // MARK: Kafka consumer

        /// Messages taken by a poll: each gets a ledger entry and is planned.
        mutating func polled(_ messages: [KafkaConsumerMessage]) -> [Action] {
            guard !messages.isEmpty else { return [] }
            messagesPlanning += messages.count
            return [.plan(messages.map { ($0, ledger.open($0)) })]
        }

        /// Partitions assigned: paused partitions stay paused, new ones join them. A partition
        /// assigned anew is not held for a lane (the consumer starts it unheld).
        mutating func assigned(_ partitions: [KafkaTopicPartition]) -> [Action] {
            laneHolding.forget(Set(partitions))
            return paused && !partitions.isEmpty ? [.pausePartitions(partitions)] : []
        }

        /// Stops working for the messages of `partitions` (revoked and not finished in time, or
        /// lost): they leave the ledger (their next owner reads them again); their deliveries not
        /// yet claimed — in the open batch, deferred, or waiting for Redis — are dropped. Claims
        /// already taken stay with their deliveries, which are sent and settled without outputs.
        mutating func handBack(_ partitions: Set<KafkaTopicPartition>) -> [Action] {
            laneHolding.forget(partitions)
            let messages = ledger.handBack(partitions)
            guard messages > 0 else { return [] }
            let ledger = ledger
            lanes.removeAll { !ledger.isTracked($0.entry) }
            throttle.removeAll { !ledger.isTracked($0.entry) }
            deferred.removeAll { !ledger.isTracked($0.entry) }
            // Records refused earlier and waiting to be produced again: not for the next owner's messages.
            outputRetries.removeAll { !ledger.isTracked($0.entry) }
            waitingForRedis = waitingForRedis.compactMap { step in
                switch step {
                case .plan(let messages):
                    let kept = messages.filter { ledger.isTracked($0.entry) }
                    return kept.isEmpty ? nil : .plan(kept)
                case .claim(let planned, let ahead):
                    let kept = planned.filter { ledger.isTracked($0.entry) }
                    return kept.isEmpty ? nil : .claim(kept, ahead: ahead)
                case .record: return step
                }
            }
            return [.handedBack(partitions, messages: messages)]
        }

        // MARK: Planning

        /// Plans made off the loop's thread: each message's records decided now are produced and
        /// its deliveries join the open batch; messages that address users are planned again
        /// together, with one registry round trip (``Action/planWithRegistry(_:)``).
        mutating func planned(_ plans: [PlanningTasks.Planned], now: MonotonicClock.Instant) -> [Action] {
            guard !plans.isEmpty else { return [] }
            var actions: [Action] = []
            var needRegistry: [MessageToPlan] = []
            for planned in plans {
                messagesPlanning -= 1
                switch planned.plan {
                case .planned: accept(planned.plan, entry: planned.entry, now: now, into: &actions)
                case .needsRegistry(let intent): needRegistry.append((intent, planned.message, planned.entry))
                }
            }
            if !needRegistry.isEmpty { submit(.plan(needRegistry), now: now, into: &actions) }
            return actions
        }

        /// The plans of messages planned with the token registry, in their order.
        mutating func plannedWithRegistry(_ plans: [DeliveryPlanner.Plan], for messages: [MessageToPlan],
                                          now: MonotonicClock.Instant) -> [Action] {
            messagesPlanning -= messages.count
            var actions: [Action] = []
            for (plan, message) in zip(plans, messages) { accept(plan, entry: message.entry, now: now, into: &actions) }
            return actions
        }

        /// The registry round trip for `messages` met a Redis outage: they wait for Redis. Those
        /// handed back (their partition revoked) while it ran go no further.
        mutating func registryFailed(_ messages: [MessageToPlan], _ error: RedisError, now: MonotonicClock.Instant) -> [Action] {
            messagesPlanning -= messages.count
            var actions: [Action] = []
            redisFailed(error, now: now, into: &actions)
            let tracked = messages.filter { ledger.isTracked($0.entry) }
            if !tracked.isEmpty { submit(.plan(tracked), now: now, into: &actions) }
            return actions
        }

        /// A message's plan: its records decided now are produced, its deliveries join the open batch.
        private mutating func accept(_ plan: DeliveryPlanner.Plan, entry: MessageLedger.EntryID, now: MonotonicClock.Instant,
                                     into actions: inout [Action]) {
            // A message handed back (its partition revoked) while it was being planned goes no further.
            guard case .planned(let deliveries, let outputs) = plan, ledger.isTracked(entry) else { return }
            if !deliveries.isEmpty {
                ledger.hold(entry, deliveries: deliveries.count)
                queue(throttle.admit(deliveries, now: now), now: now)
            }
            produce(outputs, into: &actions)
            if let complete = ledger.finishPlanning(entry) { actions.append(.complete([complete])) }
        }

        /// Deliveries free to go join their lane's queue (the intent's `lane`, else its template's,
        /// else the pipeline's default lane).
        private mutating func queue(_ deliveries: [PlannedDelivery], now: MonotonicClock.Instant) {
            guard !deliveries.isEmpty else { return }
            if lanes.isEmpty { openedAt = now }
            guard lanes.weights.count > 1, let first = deliveries.first else {
                lanes.enqueue(deliveries, lane: 0)
                return
            }
            // An intent's deliveries share its lane: most often one lane for the lot.
            let lane = laneNames.index(of: first.delivery.policy.lane)
            if deliveries.allSatisfy({ $0.delivery.policy.lane == first.delivery.policy.lane }) {
                lanes.enqueue(deliveries, lane: lane)
                noteLane(lane, of: first.message.topicPartition, now: now)
                if laneHolding.isFull(lanes.count(inLane: lane)) {
                    laneHolding.fed(lane: lane, from: deliveries.lazy.map(\.message.topicPartition))
                }
            } else {
                for delivery in deliveries {
                    let lane = laneNames.index(of: delivery.delivery.policy.lane)
                    lanes.enqueue([delivery], lane: lane)
                    noteLane(lane, of: delivery.message.topicPartition, now: now)
                    if laneHolding.isFull(lanes.count(inLane: lane)) { laneHolding.fed(lane: lane, from: [delivery.message.topicPartition]) }
                }
            }
        }

        /// Remembers whether `partition`'s latest delivery went to a lane above the lightest, and
        /// when a lane above last had one (``LightestSlots``).
        private mutating func noteLane(_ lane: Int, of partition: KafkaTopicPartition, now: MonotonicClock.Instant) {
            if lanes.priorityLanes.contains(lane) {
                partitionsAboveLightest.insert(partition)
                lightestSlots.aboveSeen(now: now)
            } else if !partitionsAboveLightest.isEmpty {
                // Most deliveries are the lightest's, from partitions never in the set: no hashing then.
                partitionsAboveLightest.remove(partition)
            }
        }

        // MARK: Throttles

        /// The token buckets answered ``Action/takeTokens(_:)``: the deliveries granted a place
        /// join their lanes; the rest wait for the next ask.
        mutating func tokensTaken(_ grants: [ThrottleGrant], now: MonotonicClock.Instant) -> [Action] {
            queue(throttle.granted(grants, now: now), now: now)
            return []
        }

        /// The round trip for tokens met a Redis outage: the throttled deliveries wait for Redis
        /// (under either `redis_unreachable` policy: a throttle is never skipped).
        mutating func tokensFailed(_ error: RedisError, now: MonotonicClock.Instant) -> [Action] {
            var actions: [Action] = []
            redisFailed(error, now: now, into: &actions)
            throttle.failed(retryAt: now)
            return actions
        }

        // MARK: Redis stage

        /// Answers of claim and record jobs from the ``RedisStage``, in the order the jobs ran. A
        /// job that met a Redis outage is submitted again, which under the outage keeps it (or its
        /// part that needs Redis) for later; any other failure is thrown.
        mutating func redisAnswered(_ outcomes: [RedisStage.Outcome], now: MonotonicClock.Instant) throws -> [Action] {
            var actions: [Action] = []
            for outcome in outcomes { try handle(outcome, now: now, into: &actions) }
            return actions
        }

        private mutating func handle(_ outcome: RedisStage.Outcome, now: MonotonicClock.Instant, into actions: inout [Action]) throws {
            switch outcome {
            case .claimed(_, let ahead), .failed(.claim(_, let ahead), _):
                claimJobs -= 1
                if ahead { priorityClaimJobs -= 1 }
            case .recorded(let sent, _), .failed(.record(let sent), _): deliveriesRecording -= sent.count
            }
            switch outcome {
            case .claimed(let claims, let ahead):
                // Claims taken for handed-back messages are still sent and settled (outputs aside):
                // the next owner meets them settled and emits their outcome, once.
                let deferring = claims.deferred.filter { ledger.isTracked($0.entry) }
                if !deferring.isEmpty { deferred.add(deferring, until: now + pendingRecheckInterval) }
                let recorded = claims.recorded.compactMap { ledger.decideWithoutOutput($0.entry) }
                if !recorded.isEmpty { actions.append(.complete(recorded)) }
                produce(claims.outputs, into: &actions)
                let batch = send(claims.admitted, holdingClaims: true, into: &actions)
                // The batch of a claim of the lanes above the lightest holds one of their slots.
                if ahead, let batch { priorityBatchesAtSender.insert(batch) }
            case .recorded(let sent, let tokenEvents):
                // One array of the outputs: a flatMap and then `+` copied each output twice.
                var outputs: [WorkerOutput] = []
                outputs.reserveCapacity(sent.count + tokenEvents.count)  // about one output a delivery
                for delivery in sent { delivery.appendOutputs(to: &outputs) }
                outputs.append(contentsOf: tokenEvents)
                produce(outputs, into: &actions)
                // Copies deferred behind these deliveries' claims (this worker's own) are claimed
                // again at the next tick, not a recheck interval later.
                deferred.wake(recorded: sent, at: now)
            case .failed(let job, let error):
                guard let error = error as? RedisError, error.isRetryable else { throw error }
                redisFailed(error, now: now, into: &actions)
                switch job {
                case .claim(let planned, let ahead): submit(.claim(planned, ahead: ahead), now: now, into: &actions)
                case .record(let sent): submit(.record(sent), now: now, into: &actions)
                }
            }
        }

        /// Runs a step now, or keeps it (or the part of it that needs Redis) for when Redis answers again.
        private mutating func submit(_ step: RedisStep, now: MonotonicClock.Instant, into actions: inout [Action]) {
            guard outage.isOut else {
                perform(step, into: &actions)
                return
            }
            let (runnable, later) = splitForOutage(step, into: &actions)
            if let later { waitingForRedis.append(later) }
            if let runnable { perform(runnable, into: &actions) }
        }

        /// What of a step can run while Redis is out, and what must wait. Under `pause`, nothing
        /// runs. Under `fail_open`, planning runs (a user-addressed intent then waits for the
        /// registry), claiming becomes sending without claims, and recording produces the records
        /// of every delivery that needs no registry clean-up at once (counted when a claim is left
        /// to settle), keeping only the settling of their claims for later.
        private func splitForOutage(_ step: RedisStep, into actions: inout [Action]) -> (now: RedisStep?, later: RedisStep?) {
            guard redisUnreachable == .failOpen else { return (nil, step) }
            guard case .record(let sent) = step else { return (step, nil) }
            let free = sent.filter { !$0.needsRegistry && !$0.onlyClaimLeft }
            let claimsLeft = free.filter(\.holdsClaim)
            if !claimsLeft.isEmpty { actions.append(.countRecordedBeforeClaims(claimsLeft.count)) }
            let later = sent.filter { $0.needsRegistry || $0.onlyClaimLeft } + claimsLeft.map { $0.claimLeft() }
            return (free.isEmpty ? nil : .record(free), later.isEmpty ? nil : .record(later))
        }

        /// Does one step, or (Redis out, `fail_open`) what of it can be done without Redis; a Redis
        /// failure leaves nothing half-done that a repetition would not redo.
        private mutating func perform(_ step: RedisStep, into actions: inout [Action]) {
            switch step {
            case .plan(let messages):
                // Out of Redis, every one of them still needs the registry.
                guard !outage.isOut else {
                    waitingForRedis.append(step)
                    return
                }
                // Planned again (with the registry's answer, off the loop's thread) until
                // ``plannedWithRegistry(_:for:now:)`` or ``registryFailed(_:_:now:)``.
                messagesPlanning += messages.count
                actions.append(.planWithRegistry(messages))
            case .claim(let planned, let ahead):
                // fail_open: the claims and collapse windows are skipped, and no encryption key can be read.
                guard !outage.isOut else {
                    actions.append(.sendWithoutClaims(planned))
                    return
                }
                claimJobs += 1
                if ahead { priorityClaimJobs += 1 }
                actions.append(.claim(planned, ahead: ahead))
            case .record(let sent):
                // fail_open: what ``splitForOutage(_:into:)`` let through is produced without Redis.
                guard !outage.isOut else {
                    actions.append(.recordWithoutRedis(sent))
                    return
                }
                deliveriesRecording += sent.count
                actions.append(.record(sent))
            }
        }

        // MARK: Redis outage

        /// A Redis call failed with an outage (connection refused or lost, timeout, `LOADING`…):
        /// from now on steps that need Redis wait, and a `PING` (``Action/ping``) tells when it is back.
        mutating func redisFailed(_ error: RedisError, now: MonotonicClock.Instant) -> [Action] {
            var actions: [Action] = []
            redisFailed(error, now: now, into: &actions)
            return actions
        }

        private mutating func redisFailed(_ error: RedisError, now: MonotonicClock.Instant, into actions: inout [Action]) {
            guard outage.failed(at: now) else { return }
            actions.append(.redisLost(error, waiting: redisUnreachable == .pause))
        }

        /// Redis answered the `PING`: the steps that waited run, in order (claims and records go to
        /// the ``RedisStage`` again, and come back through ``redisAnswered(_:now:)`` if they fail once more).
        mutating func redisReached(now: MonotonicClock.Instant) -> [Action] {
            var actions: [Action] = []
            if outage.answered() { actions.append(.redisRecovered) }
            let steps = waitingForRedis
            waitingForRedis = []
            for step in steps { perform(step, into: &actions) }
            return actions
        }

        // MARK: Sender

        /// Hands the deliveries to the sender, one send per (pool, APNs topic, bulk or not), without waiting.
        /// Returns the batch's number (nil: no deliveries, no batch).
        @discardableResult
        private mutating func send(_ deliveries: [PlannedDelivery], holdingClaims: Bool, into actions: inout [Action]) -> Int? {
            guard !deliveries.isEmpty else { return nil }
            let batch = nextBatch
            nextBatch += 1
            actions.append(.countBatch(deliveries.count))
            let groups = sendGroups(deliveries)
            batchesAtSender[batch] = groups.count
            for (group, deliveries) in groups {
                let id = nextSend
                nextSend += 1
                sends[id] = batch
                actions.append(.send(id, deliveries, pool: group.pool, bulk: group.bulk, holdingClaims: holdingClaims))
            }
            return batch
        }

        /// Deliveries sealed without keys for a `fail_open` send while Redis is out: the ones that
        /// cannot be sent have their `invalid` outcomes; the rest go to the sender without claims.
        mutating func sealedWithoutKeys(_ ready: [PlannedDelivery], refused: [WorkerOutput]) -> [Action] {
            var actions: [Action] = []
            produce(refused, into: &actions)
            send(ready, holdingClaims: false, into: &actions)
            return actions
        }

        /// The deliveries by (pool, APNs topic, bulk or not), in the order the groups first appear. A
        /// batch has few groups, and comparing a delivery's strings with the last group's (most
        /// often the same strings) costs less than hashing them for every delivery.
        private func sendGroups(_ deliveries: [PlannedDelivery]) -> [(group: SendGroup, deliveries: [PlannedDelivery])] {
            // Most often one app's deliveries of one lane to one pool: the batch is the one group as
            // it is, without its deliveries appended (and retained) one by one into a new array.
            if let first = deliveries.first, deliveries.allSatisfy({
                $0.pool == first.pool && $0.delivery.topic == first.delivery.topic && $0.delivery.policy.lane == first.delivery.policy.lane
            }) {
                return [(SendGroup(pool: first.pool, topic: first.delivery.topic, bulk: isBulk(first)), deliveries)]
            }
            var groups: [(group: SendGroup, deliveries: [PlannedDelivery])] = []
            var last = 0
            for delivery in deliveries {
                let group = SendGroup(pool: delivery.pool, topic: delivery.delivery.topic, bulk: isBulk(delivery))
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

        /// Whether the sender sends `delivery` as bulk (``APNsSender/send(_:pool:bulk:answered:)``):
        /// it is in a lane no heavier than the others, and some lane is heavier — the lanes that
        /// have batch slots of their own (``LaneScheduler/priorityLanes``).
        private func isBulk(_ delivery: PlannedDelivery) -> Bool {
            !lanes.priorityLanes.isEmpty && !lanes.priorityLanes.contains(laneNames.index(of: delivery.delivery.policy.lane))
        }

        /// Answers of sends since the last turn: they are recorded together, as one Redis job; a
        /// send's last answer frees its place. A send that failed as a whole is thrown.
        mutating func sendsAnswered(_ completions: [SendCompletions.Completion], now: MonotonicClock.Instant) throws -> [Action] {
            guard !completions.isEmpty else { return [] }
            var answered: [SentDelivery] = []
            for completion in completions { answered += try answers(of: completion) }
            var actions: [Action] = []
            if !answered.isEmpty { submit(.record(answered), now: now, into: &actions) }
            return actions
        }

        private mutating func answers(of completion: SendCompletions.Completion) throws -> [SentDelivery] {
            // A send abandoned at the shutdown deadline may still answer: nothing waits for it.
            guard let batch = sends[completion.send] else { return [] }
            if completion.isLast {
                sends[completion.send] = nil
                if let remaining = batchesAtSender[batch] {
                    batchesAtSender[batch] = remaining > 1 ? remaining - 1 : nil
                }
                if batchesAtSender[batch] == nil { priorityBatchesAtSender.remove(batch) }
            }
            return try completion.delivered.get()
        }

        // MARK: Kafka producer

        /// Records decided outside the machine (built with the clock or the registry in hand) to produce.
        mutating func decided(_ outputs: [WorkerOutput]) -> [Action] {
            var actions: [Action] = []
            produce(outputs, into: &actions)
            return actions
        }

        /// Produces records without waiting; their acknowledgements arrive through
        /// ``acknowledged(_:now:)``. Records of messages handed back (their partition revoked or
        /// lost) are not produced: the partition's next owner reads those messages again and emits them.
        private mutating func produce(_ outputs: [WorkerOutput], into actions: inout [Action]) {
            // Read by index, where they lie: iterating copied each output (five references).
            let outputs = outputs.indices.allSatisfy({ ledger.isTracked(outputs[$0].entry) })
                ? outputs : outputs.filter { ledger.isTracked($0.entry) }
            guard !outputs.isEmpty else { return }
            for index in outputs.indices { ledger.willProduce(outputs[index]) }
            actions.append(.produce(outputs))
        }

        /// The producer's ids of records produced (``Action/produce(_:)``, ``Action/produceAgain(_:)``), in order.
        mutating func produced(_ ids: [KafkaProducerMessageID], _ outputs: [WorkerOutput]) {
            assert(ids.count == outputs.count, "the producer gives one id per record")
            for index in outputs.indices { ledger.expect(ids[index], outputs[index]) }
        }

        /// Kafka's delivery reports: messages whose every record Kafka now has are completed; a
        /// record Kafka refused is sent again or replaced (``refused(_:_:record:now:into:)``), never
        /// the end of the worker.
        mutating func acknowledged(_ reports: [KafkaDeliveryReport], now: MonotonicClock.Instant) -> [Action] {
            guard !reports.isEmpty else { return [] }
            var actions: [Action] = []
            var complete: [KafkaConsumerMessage] = []
            var decided: [Int64] = []
            for report in reports {
                if case .failure(let error) = report.result {
                    if let given = refused(report.id, error, record: report.refusedMessage, now: now, into: &actions) {
                        complete.append(given)
                    }
                    continue
                }
                outputRetries.acknowledged()
                guard let acknowledged = ledger.acknowledge(report.id) else { continue }
                if acknowledged.decidedDelivery, let timestamp = acknowledged.message.timestamp { decided.append(timestamp) }
                if acknowledged.completed { complete.append(acknowledged.message) }
            }
            if !decided.isEmpty { actions.append(.deliveriesDecided(messageTimestamps: decided)) }
            if !complete.isEmpty { actions.append(.complete(complete)) }
            return actions
        }

        /// A record Kafka refused. Refused for good (too large, malformed: ``KafkaError/isPermanent``),
        /// it is replaced by its stand-in (``WorkerOutput/standIn(after:)``); a stand-in refused too
        /// is given up, and its message completes without it. Refused for a reason that may pass,
        /// the same record is produced again after a delay. Returns a message that giving up completed.
        private mutating func refused(_ id: KafkaProducerMessageID, _ error: KafkaError, record: KafkaProducerMessage?,
                                      now: MonotonicClock.Instant, into actions: inout [Action]) -> KafkaConsumerMessage? {
            guard let expected = ledger.refused(id) else { return nil }
            let output = record.map { expected.output(record: $0) }
            let source = ledger.message(of: expected.entry)
            guard !producerClosed, ledger.isTracked(expected.entry) else {
                // Nothing can be produced any more, or the message is no longer this worker's (its
                // partition handed back): it is left incomplete, record or not, for the partition's
                // next owner, which reads it again and emits its records itself.
                actions.append(.outputRefused(output, error, source: source, .handedBack))
                return nil
            }
            guard let output else {
                // Every failed report of the worker's producer carries its record; without one
                // there is nothing to send again or replace.
                actions.append(.outputRefused(nil, error, source: source, .droppedWithoutRecord))
                return ledger.giveUp(expected)
            }
            guard error.isPermanent else {
                let firstOfRound = outputRetries.add(output, now: now)
                actions.append(.outputRefused(output, error, source: source, .retrying(firstOfRound: firstOfRound)))
                return nil
            }
            if output.isStandIn {
                actions.append(.outputRefused(output, error, source: source, .dropped))
                return ledger.giveUp(expected)
            }
            actions.append(.outputRefused(output, error, source: source, .replaced))
            actions.append(.produceAgain([output.standIn(after: error)]))
            return nil
        }

        /// The producer is closed: a record refused from now on cannot be sent again.
        mutating func producerHasClosed() {
            producerClosed = true
        }

        // MARK: Time

        /// What came due by `now`: records to produce again, a `PING` while Redis is out, deferred
        /// deliveries to claim again, the open batch to close (at `batch.size`, after
        /// `batch.linger` once fewer than `concurrency` batches are out, or at once when draining);
        /// then whether the partitions are to be paused or resumed. `apnsCircuitOpen`: whether a
        /// pool the worker sends to has its circuit open.
        mutating func tick(now: MonotonicClock.Instant, apnsCircuitOpen: Bool) -> [Action] {
            var actions: [Action] = []
            if let due = outputRetries.takeDue(now: now) { actions.append(.produceAgain(due)) }
            if outage.isOut && now >= outage.nextAttempt { actions.append(.ping) }
            if !outage.isOut, let due = deferred.nextDue, due <= now {
                submit(.claim(deferred.takeDue(at: now), ahead: false), now: now, into: &actions)
            }
            if !outage.isOut {
                let requests = throttle.requests(now: now)
                if !requests.isEmpty { actions.append(.takeTokens(requests)) }
            }
            lightestSlots.update(now: now)
            let due = lanes.count >= batchSize || now >= openedAt + batchLinger
            let size = batchSize // read by the closures below, which cannot read `self` while `lanes` changes
            if draining || finishingRevocation {
                if !lanes.isEmpty { closeBatch(now: now, ahead: false, into: &actions) { $0.takeAll() } }
            } else if due {
                // The lanes above the lightest never share a batch with it: they close one of their
                // own in a slot of their own (so under a bulk backlog they do not wait for a bulk
                // batch to be answered), and the lightest lanes' batches hold only theirs (docs/policies.md).
                if lanes.priorityCount > 0 && mayClosePriorityBatch {
                    closeBatch(now: now, ahead: true, into: &actions) { $0.takePriority(size) }
                }
                if lanes.count > lanes.priorityCount && mayCloseLightestBatch {
                    closeBatch(now: now, ahead: false, into: &actions) { $0.takeLightest(size) }
                }
            }
            updateLaneHolding(into: &actions)
            updatePausing(apnsCircuitOpen: apnsCircuitOpen, into: &actions)
            return actions
        }

        /// Claims the deliveries taken from the lanes as the next batch, counted by lane; `ahead`: a
        /// batch of the lanes above the lightest.
        private mutating func closeBatch(now: MonotonicClock.Instant, ahead: Bool, into actions: inout [Action],
                                         taking take: (inout LaneScheduler<PlannedDelivery>) -> [PlannedDelivery]) {
            let before = lanes.scheduled
            let batch = take(&lanes)
            if lanes.weights.count > 1 { actions.append(.countScheduled(zip(lanes.scheduled, before).map { $0 - $1 })) }
            if !lanes.isEmpty { openedAt = now }
            submit(.claim(batch, ahead: ahead), now: now, into: &actions)
        }

        /// Holds the partitions that fed a full lane and releases those of a lane that drained
        /// (``LaneHolding``). While every partition is paused (held for another reason), nothing is
        /// held or released here: the partitions a lane still holds stay held when the others resume.
        private mutating func updateLaneHolding(into actions: inout [Action]) {
            let lanes = lanes
            let (hold, release) = laneHolding.update { lanes.count(inLane: $0) }
            guard !paused else { return }
            for (lane, partitions) in hold { actions.append(.holdLane(laneNames.lanes[lane].name, Self.sorted(partitions))) }
            for (lane, partitions) in release { actions.append(.releaseLane(laneNames.lanes[lane].name, Self.sorted(partitions))) }
        }

        private static func sorted(_ partitions: Set<KafkaTopicPartition>) -> [KafkaTopicPartition] {
            partitions.sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
        }

        /// Pauses the partitions while deliveries in flight reach `max_in_flight`, work waits for
        /// Redis under the `pause` policy, a pool's circuit is open or refused records wait to be
        /// produced again; resumes them otherwise. The loop keeps polling either way, so the
        /// consumer stays in its group.
        private mutating func updatePausing(apnsCircuitOpen: Bool, into actions: inout [Action]) {
            let waitingMessages = waitingForRedis.reduce(0) { count, step in
                if case .plan(let messages) = step { count + messages.count } else { count }
            }
            let saturated = ledger.deliveriesInFlight + waitingMessages >= maximumInFlight
            let redisWait = outage.isOut && redisUnreachable == .pause
            // Kafka refused records for a reason that may pass (a full queue, a broker away): more
            // work would only add to them.
            let outputsWaiting = !outputRetries.isEmpty
            // A batch's worth of deliveries waits for a throttle's tokens: over the rate, work waits in Kafka.
            let throttled = throttle.heldCount >= batchSize
            let reason: PauseReason? = redisWait ? .redis : apnsCircuitOpen ? .apnsCircuit : outputsWaiting ? .kafkaProducer
                : saturated ? .maximumInFlight : throttled ? .throttle : nil
            guard (reason != nil) != paused else { return }
            paused = reason != nil
            actions.append(reason.map { .pause($0) } ?? .resume(keepingHeld: laneHolding.held))
        }

        // MARK: Stopping

        /// Stopping began: the open batch closes at the next tick, and nothing more is polled.
        mutating func drainRequested() {
            draining = true
        }

        /// Partitions are being revoked, and their work is finished before the consumer commits
        /// them: until ``revocationEnded()``, the open batch closes at once.
        mutating func revocationStarted() {
            finishingRevocation = true
        }

        mutating func revocationEnded() {
            finishingRevocation = false
        }

        /// After the drain: the deliveries that wait for Redis to be claimed, which will not be
        /// sent (their claims, should a failed job have taken some, are to be given back), and
        /// whether Redis is out.
        func unsentAtStop() -> (deliveries: [PlannedDelivery], redisOut: Bool) {
            let unsent = waitingForRedis.flatMap { step -> [PlannedDelivery] in
                if case .claim(let planned, _) = step { planned } else { [] }
            }
            return (unsent, outage.isOut)
        }
    }
}
