@testable import APNsClient
import APNsCore
import Enrichment
import Kafka
@testable import Pipeline
import PushlineTestKit
import Runtime
@testable import Redis
@testable import Worker

/// Drives a ``WorkerLoop/StateMachine`` event by event, with no Kafka, Redis or sender: messages
/// are planned by a real ``DeliveryPlanner`` (the example catalogue), the producer's ids are handed
/// out here, and each event's actions are read back as short strings (``summary(_:)``) to compare.
/// What the loop would send on (claims, sends, records, produced records) is kept here for the
/// test to answer.
struct StateMachineFixture {
    static let topic = "pushline.intents"
    static let app = LocalPipeline.app

    var machine: WorkerLoop.StateMachine
    let planner: DeliveryPlanner
    /// The time of the first event; tests move on from it.
    let start = MonotonicClock.now
    /// Records produced (``WorkerLoop/StateMachine/Action/produce(_:)``), by the id handed out for them.
    private(set) var produced: [(id: KafkaProducerMessageID, output: WorkerOutput)] = []
    private var nextProducerID: UInt64 = 1
    /// Claim jobs, sends and record jobs asked for, in order.
    private(set) var claimJobs: [[PlannedDelivery]] = []
    /// Whether each of `claimJobs` is a claim ahead (a batch of the lanes above the lightest).
    private(set) var claimsAhead: [Bool] = []
    private(set) var sends: [(id: Int, deliveries: [PlannedDelivery], holdingClaims: Bool)] = []
    private(set) var recordJobs: [[SentDelivery]] = []
    /// Deliveries to send without claims (`fail_open`), and records to produce without Redis, in order.
    private(set) var withoutClaims: [[PlannedDelivery]] = []
    private(set) var withoutRedis: [[SentDelivery]] = []
    /// Messages to plan with the token registry, in order.
    private(set) var registryPlans: [[WorkerLoop.MessageToPlan]] = []
    /// Requests for throttle tokens, in order.
    private(set) var tokenRequests: [[ThrottleRequest]] = []
    /// Messages to plan (``WorkerLoop/StateMachine/Action/plan(_:)``), in order.
    private(set) var toPlan: [(message: KafkaConsumerMessage, entry: MessageLedger.EntryID)] = []

    init(configure: (inout WorkerConfiguration) -> Void = { _ in }) throws {
        var configuration = WorkerConfiguration(consumer: KafkaConsumerConfiguration(bootstrapServers: "unused:9092", groupID: "g",
                                                                                     topics: [Self.topic]),
                                                producer: KafkaProducerConfiguration(bootstrapServers: "unused:9092"),
                                                stores: .inMemory, pools: [.sandbox: "sandbox"])
        configure(&configuration)
        machine = WorkerLoop.StateMachine(configuration: configuration)
        planner = DeliveryPlanner(configuration: configuration, catalog: try LocalPipeline.catalogStore())
    }

    /// `milliseconds` after ``start``.
    func at(_ milliseconds: Int) -> MonotonicClock.Instant {
        start + .milliseconds(milliseconds)
    }

    // MARK: Inputs

    static func token(_ index: Int) throws -> DeviceToken {
        try DeviceToken(String(format: "%064x", index + 1))
    }

    /// A token-addressed intent (sandbox, raw payload); `extra` adds top-level fields (`"k":v,`).
    static func intent(id: String, tokens: [Int], extra: String = "") throws -> [UInt8] {
        let list = try tokens.map { "\"\(try token($0).hex)\"" }.joined(separator: ",")
        return intent(id: id, recipients: "\"tokens\":[\(list)]", extra: extra)
    }

    static func intent(id: String, user: String) -> [UInt8] {
        intent(id: id, recipients: "\"user\":\"\(user)\"")
    }

    private static func intent(id: String, recipients: String, extra: String = "") -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"\(id)","app":"\(app)","environment":"sandbox",\(recipients),\(extra)
             "payload":{"aps":{"alert":"hello"}}}
            """.utf8)
    }

    /// Intent "i`number`" to token `number - 1`, at `offset` (`number - 1` unless given).
    static func message(number: Int, partition: Int32 = 0, offset: Int64? = nil) throws -> KafkaConsumerMessage {
        message(try intent(id: "i\(number)", tokens: [number - 1]), partition: partition, offset: offset ?? Int64(number - 1))
    }

    static func message(_ value: [UInt8], partition: Int32 = 0, offset: Int64) -> KafkaConsumerMessage {
        KafkaConsumerMessage(topicPartition: KafkaTopicPartition(topic: topic, partition: partition), offset: offset, key: nil,
                             value: value, timestamp: 1_700_000_000_000 + offset)
    }

    // MARK: Events

    /// Polls the messages and plans them as ``PlanningTasks`` does (a user-addressed one comes back
    /// as needing the registry); returns the actions of both events.
    mutating func pollAndPlan(_ messages: [KafkaConsumerMessage], now: Int = 0) -> [String] {
        var actions = perform(machine.polled(messages))
        let plans = toPlan.map { message, entry in
            PlanningTasks.Planned(message: message, entry: entry, plan: planner.plan(message, entry: entry, enricher: planner.catalog.enricher))
        }
        toPlan = []
        actions += perform(machine.planned(plans, now: at(now)))
        return actions
    }

    mutating func tick(_ now: Int, apnsCircuitOpen: Bool = false) -> [String] {
        perform(machine.tick(now: at(now), apnsCircuitOpen: apnsCircuitOpen))
    }

    /// Takes `messages` (token-addressed intents) through planning, one batch, its claim (every
    /// delivery admitted), the send (every delivery answered `outcome`) and recording: their
    /// records are produced, none acknowledged yet. Returns the recording's actions.
    @discardableResult
    mutating func deliverToRecords(_ messages: [KafkaConsumerMessage], _ outcome: DeliveryResult.Outcome = .accepted) throws -> [String] {
        _ = pollAndPlan(messages)
        _ = tick(1)
        _ = try answerClaim()
        _ = try answerSend(outcome)
        return try answerRecord()
    }

    /// ``deliverToRecords(_:_:)`` for one message (offset 0) with an intent for `tokens`.
    mutating func deliverToRecords(tokens: [Int], _ outcome: DeliveryResult.Outcome = .accepted) throws {
        try deliverToRecords([Self.message(try Self.intent(id: "i1", tokens: tokens), offset: 0)], outcome)
    }

    /// The answer of the claim job at `index` (the oldest unless the Redis stage ran a claim ahead
    /// first): every delivery claimed, unless `decide` says otherwise.
    mutating func answerClaim(at index: Int = 0, now: Int = 0,
                              _ decide: (PlannedDelivery) -> Claim = { _ in .admitted }) throws -> [String] {
        let job = claimJobs.remove(at: index)
        let ahead = claimsAhead.remove(at: index)
        var claims = DeliveryStages.Claims()
        for delivery in job {
            switch decide(delivery) {
            case .admitted: claims.admitted.append(delivery)
            case .deferred: claims.deferred.append(delivery)
            case .recorded: claims.recorded.append(delivery)
            case .suppressed(let reason): claims.outputs.append(planner.records.outcome(delivery, .suppressed, reason: reason))
            }
        }
        return try perform(machine.redisAnswered([.claimed(claims, ahead: ahead)], now: at(now)))
    }

    /// The oldest claim job fails with `error`.
    mutating func failClaim(_ error: any Error, now: Int = 0) throws -> [String] {
        try perform(machine.redisAnswered([.failed(.claim(claimJobs.removeFirst(), ahead: claimsAhead.removeFirst()), error)],
                                          now: at(now)))
    }

    /// The oldest send's answers: every delivery `outcome` (a 410 `Unregistered` for `.rejected`).
    mutating func answerSend(_ outcome: DeliveryResult.Outcome = .accepted, now: Int = 0, isLast: Bool = true) throws -> [String] {
        let send = sends.removeFirst()
        var originals = LastOriginal()
        let sent = send.deliveries.map { planned in
            let rejected = outcome == .rejected
            let result = DeliveryResult(outcome: outcome, id: planned.delivery.notificationID, deviceToken: planned.delivery.token,
                                        status: rejected ? 410 : 200, apnsID: nil, apnsUniqueID: nil,
                                        reason: rejected ? .unregistered : nil, timestamp: nil, attempts: 1, latencyMilliseconds: 1,
                                        failureDetail: nil)
            let records = planner.records.sent(planned, result, completedAt: 1_700_000_000_000, originals: &originals)
            return SentDelivery(planned: planned, result: result, outcome: records.outcome, deadLetter: records.deadLetter,
                                settled: records.settled, holdsClaim: send.holdingClaims)
        }
        return try perform(machine.sendsAnswered([SendCompletions.Completion(send: send.id, delivered: .success(sent), isLast: isLast)],
                                                 now: at(now)))
    }

    /// The oldest record job's answer.
    mutating func answerRecord(now: Int = 0) throws -> [String] {
        let job = recordJobs.removeFirst()
        let tokenEvents = job.compactMap { planner.records.tokenEvent($0.planned, $0.result, removed: true) }
        return try perform(machine.redisAnswered([.recorded(job, tokenEvents: tokenEvents)], now: at(now)))
    }

    /// The oldest record job fails with `error`.
    mutating func failRecord(_ error: any Error, now: Int = 0) throws -> [String] {
        try perform(machine.redisAnswered([.failed(.record(recordJobs.removeFirst()), error)], now: at(now)))
    }

    /// Kafka acknowledges the records produced, by their place in ``produced`` (all when nil).
    mutating func acknowledge(_ indices: [Int]? = nil, now: Int = 0) -> [String] {
        let reports = (indices ?? Array(produced.indices)).map { index in
            KafkaDeliveryReport(id: produced[index].id, topicPartition: KafkaTopicPartition(topic: produced[index].output.record.topic, partition: 0),
                                result: .success(Int64(index)))
        }
        return perform(machine.acknowledged(reports, now: at(now)))
    }

    /// Kafka refuses the record produced at `index` with `code`.
    mutating func refuse(_ index: Int, _ code: KafkaError.Code, now: Int = 0) -> [String] {
        let (id, output) = produced[index]
        let report = KafkaDeliveryReport(id: id, topicPartition: KafkaTopicPartition(topic: output.record.topic, partition: 0),
                                         result: .failure(KafkaError(code: code, reason: "refused")), refusedMessage: output.record)
        return perform(machine.acknowledged([report], now: at(now)))
    }

    /// The oldest registry round trip's answer: every user has the `devices`; the messages planned
    /// with it as the planning tasks plan them (``DeliveryPlanner/plan(_:found:enricher:)``).
    mutating func answerRegistry(devices: [Int], now: Int = 0) throws -> [String] {
        let messages = registryPlans.removeFirst()
        let recipients = UserRecipients(devices: try devices.map { TokenRegistry.Device(token: try Self.token($0), registeredAt: 0) },
                                        profile: UserProfile())
        var found: [UserQuery: UserRecipients] = [:]
        for planning in messages {
            guard case .user(let user) = planning.intent.recipients else { continue }
            found[DeliveryPlanner.query(user, planning.intent)] = recipients
        }
        let plans = planner.plan(messages, found: found, enricher: planner.catalog.enricher)
        return perform(machine.plannedWithRegistry(plans, for: messages, now: at(now)))
    }

    /// The oldest registry round trip meets a Redis outage.
    mutating func failRegistry(_ error: RedisError, now: Int = 0) -> [String] {
        perform(machine.registryFailed(registryPlans.removeFirst(), error, now: at(now)))
    }

    /// The oldest request for throttle tokens answered: `granted` per throttle asked, each with `retryAfter` ms.
    mutating func grantTokens(_ granted: [Int], retryAfter: Int = 0, now: Int = 0) -> [String] {
        let requests = tokenRequests.removeFirst()
        let grants = zip(requests, granted).map { request, granted in
            ThrottleGrant(granted: granted, retryAfterMilliseconds: granted < request.wanted ? retryAfter : 0)
        }
        return perform(machine.tokensTaken(grants, now: at(now)))
    }

    /// The `fail_open` seal of the oldest deliveries to send without claims (none refused).
    mutating func sealWithoutKeys() -> [String] {
        perform(machine.sealedWithoutKeys(withoutClaims.removeFirst(), refused: []))
    }

    /// The `fail_open` records of the oldest sent deliveries to record without Redis.
    mutating func recordWithoutRedis() -> [String] {
        var outputs: [WorkerOutput] = []
        for delivery in withoutRedis.removeFirst() { delivery.appendOutputs(to: &outputs) }
        return perform(machine.decided(outputs))
    }

    // MARK: Actions

    enum Claim {
        case admitted, deferred, recorded
        case suppressed(String)
    }

    /// Keeps what the loop would hand on, answers the producer's ids at once, and returns each
    /// action's summary.
    mutating func perform(_ actions: [WorkerLoop.StateMachine.Action]) -> [String] {
        for action in actions {
            switch action {
            case .plan(let messages): toPlan += messages
            case .claim(let planned, let ahead):
                claimJobs.append(planned)
                claimsAhead.append(ahead)
            case .record(let sent): recordJobs.append(sent)
            case .sendWithoutClaims(let planned): withoutClaims.append(planned)
            case .recordWithoutRedis(let sent): withoutRedis.append(sent)
            case .planWithRegistry(let messages): registryPlans.append(messages)
            case .takeTokens(let requests): tokenRequests.append(requests)
            case .send(let id, let deliveries, _, _, let holdingClaims): sends.append((id, deliveries, holdingClaims))
            case .produce(let outputs), .produceAgain(let outputs):
                let ids = outputs.map { _ in
                    defer { nextProducerID += 1 }
                    return KafkaProducerMessageID(rawValue: nextProducerID)
                }
                machine.produced(ids, outputs)
                produced += zip(ids, outputs).map { ($0, $1) }
            default: break
            }
        }
        return actions.map(Self.summary)
    }

    static func summary(_ action: WorkerLoop.StateMachine.Action) -> String {
        switch action {
        case .plan(let messages): "plan \(messages.count)"
        case .planWithRegistry(let messages): "planWithRegistry \(messages.count)"
        case .claim(let planned, _): "claim \(planned.count)"
        case .record(let sent): "record \(sent.count)"
        case .sendWithoutClaims(let planned): "sendWithoutClaims \(planned.count)"
        case .recordWithoutRedis(let sent): "recordWithoutRedis \(sent.count)"
        case .send(let id, let deliveries, let pool, let bulk, let holdingClaims):
            "send #\(id) \(deliveries.count) to \(pool)\(bulk ? " as bulk" : "")\(holdingClaims ? "" : " without claims")"
        case .produce(let outputs): "produce " + outputs.map(describe).joined(separator: ", ")
        case .produceAgain(let outputs): "produce again " + outputs.map(describe).joined(separator: ", ")
        case .complete(let messages): "complete " + messages.map { "\($0.topicPartition.partition):\($0.offset)" }.joined(separator: ",")
        case .ping: "ping"
        case .pause(let reason): "pause \(reason.rawValue)"
        case .resume(let keepingHeld):
            keepingHeld.isEmpty ? "resume" : "resume but " + keepingHeld.map { "\($0.partition)" }.sorted().joined(separator: ",")
        case .holdLane(let lane, let partitions): "hold lane \(lane): " + partitions.map { "\($0.partition)" }.joined(separator: ",")
        case .releaseLane(let lane, let partitions): "release lane \(lane): " + partitions.map { "\($0.partition)" }.joined(separator: ",")
        case .pausePartitions(let partitions): "pause \(partitions.count) partitions"
        case .redisLost(_, let waiting): waiting ? "redis lost, waiting" : "redis lost"
        case .redisRecovered: "redis recovered"
        case .handedBack(_, let messages): "handed back \(messages)"
        case .outputRefused(_, let error, let source, let refusal):
            "refused \(error.code.name) from " + (source.map { "\($0.topicPartition.partition):\($0.offset)" } ?? "nothing") + ": \(refusal)"
        case .deliveriesDecided(let timestamps): "decided \(timestamps.count)"
        case .countBatch(let deliveries): "batch of \(deliveries)"
        case .countRecordedBeforeClaims(let deliveries): "recorded before claims \(deliveries)"
        case .takeTokens(let requests): "take tokens " + requests.map { "\($0.bucket)×\($0.wanted)" }.joined(separator: ", ")
        case .countScheduled(let perLane): "scheduled \(perLane)"
        }
    }

    static func describe(_ output: WorkerOutput) -> String {
        let kind = switch output.kind {
        case .outcome(let status, let reason, _): "outcome \(status.rawValue)" + (reason.map { " \($0)" } ?? "")
        case .deadLetter(let reason): "dead letter \(reason)"
        case .tokenEvent(let kind): "token event \(kind.rawValue)"
        }
        return output.isStandIn ? "stand-in of \(kind)" : kind
    }
}
