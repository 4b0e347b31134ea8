import APNsClient
import APNsCore
import Enrichment
import Kafka
import Pipeline
import Redis

/// The stages that turn intent messages into deliveries and records, each touching Redis in at most
/// one round trip per call: plan (decode, resolve recipients, enrich), claim (idempotency claims and
/// collapse windows), and record (settle the claims, build outcomes and token events). Lives on the
/// worker's thread: its Redis connection is confined there. A Redis failure is thrown as the
/// ``RedisError``; the caller retries the whole call, which is safe to repeat.
struct DeliveryStages {
    /// What planning one message gave.
    enum Plan {
        /// Its deliveries, and the records decided already (dead letters, `invalid` outcomes).
        case planned([PlannedDelivery], outputs: [WorkerOutput])
        /// It addresses a user, and the token registry was not to be asked.
        case needsRegistry
    }

    /// What claiming a set of deliveries decided.
    struct Claims {
        /// Claimed and through the collapse windows: send these.
        var admitted: [PlannedDelivery] = []
        /// Another attempt holds the claim: check again later.
        var deferred: [PlannedDelivery] = []
        /// Suppressed deliveries' outcomes.
        var outputs: [WorkerOutput] = []
    }

    private let configuration: WorkerConfiguration
    private let enricher: Enricher
    private let records: OutputRecords
    private let redis: RedisConnection
    private let idempotency: IdempotencyStore
    private let collapse: CollapseWindow
    private let registry: TokenRegistry

    /// - Parameter owner: this worker's id, written into its `pending` claims.
    init(configuration: WorkerConfiguration, enricher: Enricher, redis: RedisConnection, owner: String) {
        self.configuration = configuration
        self.enricher = enricher
        self.redis = redis
        records = OutputRecords(outcomesTopic: configuration.outcomesTopic, tokenEventsTopic: configuration.tokenEventsTopic,
                                dlqTopic: configuration.dlqTopic)
        idempotency = IdempotencyStore(connection: redis, configuration: configuration.idempotency, owner: owner)
        collapse = CollapseWindow(connection: redis)
        registry = TokenRegistry(connection: redis)
    }

    // MARK: Plan

    /// The deliveries of one message; bad input becomes a dead letter and `invalid` outcomes.
    /// - Parameter registryAvailable: false while Redis is out: a user-addressed intent then waits.
    func plan(_ message: KafkaConsumerMessage, entry: MessageLedger.EntryID, registryAvailable: Bool) throws(RedisError) -> Plan {
        let source = SourcePosition(topic: message.topicPartition.topic, partition: message.topicPartition.partition, offset: message.offset)
        let bytes = message.value ?? []
        let intent: Intent
        do {
            intent = try IntentDecoder.decode(bytes)
        } catch {
            return .planned([], outputs: [
                records.deadLetter(reason: error.code.rawValue, detail: error.description, source: source, original: bytes, intentID: nil, entry: entry),
                records.undecodable(reason: error.code.rawValue, source: source, entry: entry),
            ])
        }
        let user: String?
        let devices: [RecipientDevice]
        switch intent.recipients {
        case .tokens(let tokens):
            user = nil
            devices = tokens.map { RecipientDevice(token: $0, environment: intent.environment) }
        case .user(let id):
            guard registryAvailable else { return .needsRegistry }
            user = id
            let locale = try registry.locales(users: [id])[0]
            devices = try registry.devices(users: [id], app: intent.app, environment: intent.environment.rawValue)[0]
                .map { RecipientDevice(token: $0.token, environment: intent.environment, profileLocale: locale) }
        }
        guard !devices.isEmpty else {
            return .planned([], outputs: [records.outcome(records.intentOutcome(intent, user: user, source: source, reason: "NoRegisteredDevices"),
                                                          entry: entry)])
        }
        guard let pool = configuration.pools[intent.environment] else {
            return .planned([], outputs: invalid(intent, user: user, devices: devices, message: message, source: source, entry: entry,
                                                 reason: "NoPoolForEnvironment", detail: "no sender pool serves \(intent.environment.rawValue)"))
        }
        do {
            let deliveries = try enricher.deliveries(for: intent, devices: devices).map { delivery in
                PlannedDelivery(delivery: delivery, intent: intent, user: user, pool: pool, message: message, source: source, entry: entry)
            }
            return .planned(deliveries, outputs: [])
        } catch {
            return .planned([], outputs: invalid(intent, user: user, devices: devices, message: message, source: source, entry: entry,
                                                 reason: error.code.rawValue, detail: error.description))
        }
    }

    /// A decoded intent that cannot become notifications: a dead letter and one `invalid` outcome per device.
    private func invalid(_ intent: Intent, user: String?, devices: [RecipientDevice], message: KafkaConsumerMessage, source: SourcePosition,
                         entry: MessageLedger.EntryID, reason: String, detail: String) -> [WorkerOutput] {
        var outputs = [records.deadLetter(reason: reason, detail: detail, source: source, original: message.value ?? [],
                                          intentID: intent.id, entry: entry)]
        for device in devices {
            var event = records.intentOutcome(intent, user: user, source: source, reason: reason)
            event.token = device.token.hex
            outputs.append(records.outcome(event, entry: entry))
        }
        return outputs
    }

    // MARK: Claim

    /// Claims every delivery in one round trip, then applies the collapse windows in one more.
    /// `sent`/`failed` claims are suppressed as `DuplicateIntent`. A claim held by another attempt
    /// — or by this worker for a delivery in `inFlight` or met earlier in this call (another copy
    /// of it) — is deferred; a claim this worker holds for nothing in flight (a repeated call) is its own.
    func claim(_ planned: [PlannedDelivery], inFlight: Set<DeliveryKey>) throws(RedisError) -> Claims {
        var claims = Claims()
        guard !planned.isEmpty else { return claims }
        var claimedHere = Set<DeliveryKey>()
        var claimed: [PlannedDelivery] = []
        for (delivery, result) in zip(planned, try idempotency.claim(planned.map(\.key))) {
            let key = delivery.key
            let ours = (result == .claimed || result == .heldByOwner) && !inFlight.contains(key) && !claimedHere.contains(key)
            if ours {
                var delivery = delivery
                delivery.holdsClaim = true
                claimed.append(delivery)
                claimedHere.insert(key)
            } else if result == .sent || result == .failed {
                claims.outputs.append(records.outcome(delivery, .suppressed, reason: "DuplicateIntent"))
            } else {
                claims.deferred.append(delivery)
            }
        }
        claims.admitted = try applyCollapseWindows(claimed, outputs: &claims.outputs)
        return claims
    }

    /// Drops duplicate and stale collapse-id deliveries of intents with a dedupe window (their claims
    /// are marked failed, so a redelivery is suppressed too); returns the rest.
    private func applyCollapseWindows(_ claimed: [PlannedDelivery], outputs: inout [WorkerOutput]) throws(RedisError) -> [PlannedDelivery] {
        let windowed = claimed.indices.filter { claimed[$0].delivery.collapseID != nil && claimed[$0].intent.dedupeWindow != nil }
        guard !windowed.isEmpty else { return claimed }
        let decisions = try collapse.decide(windowed.map { index in
            let planned = claimed[index]
            return CollapseWindow.Entry(deviceToken: planned.delivery.token, collapseID: planned.delivery.collapseID ?? "",
                                        intentID: planned.intent.id, createdAt: planned.intent.createdAt ?? OutputRecords.now(),
                                        windowSeconds: Int(planned.intent.dedupeWindow ?? 0))
        })
        var dropped: [Int: String] = [:]
        for (index, decision) in zip(windowed, decisions) {
            switch decision {
            case .accepted, .sameIntent: continue
            case .duplicate: dropped[index] = "DuplicateCollapse"
            case .stale: dropped[index] = "StaleCollapse"
            }
        }
        guard !dropped.isEmpty else { return claimed }
        try idempotency.markFailed(dropped.keys.map { claimed[$0].key })
        for (index, reason) in dropped.sorted(by: { $0.key < $1.key }) {
            outputs.append(records.outcome(claimed[index], .suppressed, reason: reason))
        }
        return claimed.indices.filter { dropped[$0] == nil }.map { claimed[$0] }
    }

    /// Gives back claims this worker holds and will not send (shutdown).
    func release(_ planned: [PlannedDelivery]) throws(RedisError) {
        let keys = planned.filter(\.holdsClaim).map(\.key)
        if !keys.isEmpty { try idempotency.release(keys) }
    }

    /// Whether Redis answers.
    func ping() throws(RedisError) {
        _ = try redis.send(RedisCommand("PING"))
    }

    // MARK: Send and record

    func notification(_ planned: PlannedDelivery) throws -> APNsNotification {
        let delivery = planned.delivery
        return APNsNotification(deviceToken: delivery.token, pushType: delivery.pushType, topic: delivery.topic,
                                priority: delivery.priority, expiration: delivery.expiration,
                                collapseID: try delivery.collapseID.map(CollapseID.init), id: delivery.notificationID,
                                payload: delivery.payload)
    }

    /// Settles the claims this worker holds by result (accepted → sent, rejected or expired →
    /// failed, failed → released and dead-lettered) in one round trip, and builds one outcome each,
    /// plus token events for what APNs said about tokens.
    func record(_ results: [(PlannedDelivery, DeliveryResult)]) throws(RedisError) -> [WorkerOutput] {
        var outputs: [WorkerOutput] = []
        var sent: [DeliveryKey] = []
        var failed: [DeliveryKey] = []
        var released: [DeliveryKey] = []
        for (planned, result) in results {
            let status: OutcomeEvent.Status = switch result.outcome {
            case .accepted: .accepted
            case .rejected: .rejected
            case .expired: .expired
            case .failed: .failed
            }
            if planned.holdsClaim {
                switch status {
                case .accepted: sent.append(planned.key)
                case .failed: released.append(planned.key)
                default: failed.append(planned.key)
                }
            }
            if status == .failed {
                outputs.append(records.deadLetter(reason: "RetriesExhausted",
                                                  detail: result.failureDetail ?? "the notification could not be handed to APNs",
                                                  source: planned.source, original: planned.message.value ?? [],
                                                  intentID: planned.intent.id, entry: planned.entry))
            }
            outputs.append(records.outcome(planned, status, reason: result.reason?.description ?? result.failureDetail, result: result))
            if let reason = result.reason, let kind = TokenEvent.kind(for: reason) {
                outputs.append(try tokenEvent(kind, reason: reason.description, planned: planned, timestamp: result.timestamp))
            }
        }
        try idempotency.settle(sent: sent, failed: failed, released: released)
        return outputs
    }

    /// Whether recording this result touches Redis: settling a claim this worker holds, or
    /// removing a token from the registry.
    func recordNeedsRedis(_ planned: PlannedDelivery, _ result: DeliveryResult) -> Bool {
        planned.holdsClaim || result.reason.flatMap(TokenEvent.kind(for:)).map { $0 != .suspect } ?? false
    }

    /// The token event; `unregistered` and `expired` also remove the token from the registry unless
    /// it was registered again after APNs' timestamp.
    private func tokenEvent(_ kind: TokenEvent.Kind, reason: String, planned: PlannedDelivery, timestamp: Int64?) throws(RedisError) -> WorkerOutput {
        let now = OutputRecords.now()
        let removed = kind == .suspect ? false
            : try registry.remove(app: planned.intent.app, environment: planned.intent.environment.rawValue,
                                  token: planned.delivery.token, invalidatedAt: timestamp ?? now)
        let event = TokenEvent(kind: kind, reason: reason, app: planned.intent.app, environment: planned.intent.environment.rawValue,
                               token: planned.delivery.token.hex, user: planned.user, intentID: planned.intent.id,
                               apnsTimestamp: timestamp, observedAt: now, removedFromRegistry: removed)
        return records.tokenEvent(event, entry: planned.entry)
    }
}
