import APNsClient
import APNsCore
import Enrichment
import Foundation
import Kafka
import Pipeline
import Redis
import Runtime

/// Turns one batch of intent messages into the Kafka messages that record it: decode, resolve
/// recipients, enrich, claim, apply collapse windows, send, settle the claims, and one outcome per
/// delivery (plus dead letters and token events). Lives on the worker's thread: its Redis
/// connection is confined there.
struct BatchProcessor {
    /// One delivery of one intent, on its way through the batch.
    private struct Planned {
        let delivery: Delivery
        let intent: Intent
        let user: String?
        let pool: String
        let message: KafkaConsumerMessage
        let source: SourcePosition

        var key: DeliveryKey { DeliveryKey(intentID: intent.id, deviceToken: delivery.token) }
    }

    private let configuration: WorkerConfiguration
    private let enricher: Enricher
    private let sender: APNsSender
    private let idempotency: IdempotencyStore
    private let collapse: CollapseWindow
    private let registry: TokenRegistry

    init(configuration: WorkerConfiguration, enricher: Enricher, sender: APNsSender, redis: RedisConnection) {
        self.configuration = configuration
        self.enricher = enricher
        self.sender = sender
        idempotency = IdempotencyStore(connection: redis, configuration: configuration.idempotency)
        collapse = CollapseWindow(connection: redis)
        registry = TokenRegistry(connection: redis)
    }

    /// The outputs for `messages`; every message is fully recorded by them.
    func process(_ messages: [KafkaConsumerMessage]) throws -> [KafkaProducerMessage] {
        var outputs: [KafkaProducerMessage] = []
        var planned: [Planned] = []
        for message in messages {
            planned += try plan(message, outputs: &outputs)
        }
        let claimed = try claim(planned, outputs: &outputs)
        let admitted = try applyCollapseWindows(claimed, outputs: &outputs)
        for (pool, group) in Dictionary(grouping: admitted, by: \.pool) {
            let notifications = try group.map(notification)
            let results = try wait { [sender] in try await sender.send(notifications, pool: pool) }.get()
            try record(Array(zip(group, results)), outputs: &outputs)
        }
        return outputs
    }

    // MARK: Decode, resolve, enrich

    /// The deliveries of one message; bad input becomes a dead letter and `invalid` outcomes.
    private func plan(_ message: KafkaConsumerMessage, outputs: inout [KafkaProducerMessage]) throws -> [Planned] {
        let source = SourcePosition(topic: message.topicPartition.topic, partition: message.topicPartition.partition, offset: message.offset)
        let bytes = message.value ?? []
        let intent: Intent
        do {
            intent = try IntentDecoder.decode(bytes)
        } catch {
            outputs.append(deadLetter(reason: error.code.rawValue, detail: error.description, source: source, original: bytes, intentID: nil))
            // No intent id, app or environment could be read: the outcome names the source position instead.
            outputs.append(outcome(OutcomeEvent(intentID: "\(source.topic):\(source.partition):\(source.offset)", app: "unknown",
                                                environment: Intent.Environment.production.rawValue, status: .invalid,
                                                source: source, completedAt: Self.now(), reason: error.code.rawValue)))
            return []
        }
        let user: String?
        let devices: [RecipientDevice]
        switch intent.recipients {
        case .tokens(let tokens):
            user = nil
            devices = tokens.map { RecipientDevice(token: $0, environment: intent.environment) }
        case .user(let id):
            user = id
            let locale = try registry.locales(users: [id])[0]
            devices = try registry.devices(users: [id], app: intent.app, environment: intent.environment.rawValue)[0]
                .map { RecipientDevice(token: $0.token, environment: intent.environment, profileLocale: locale) }
        }
        guard !devices.isEmpty else {
            outputs.append(outcome(intentOutcome(intent, user: user, source: source, reason: "NoRegisteredDevices")))
            return []
        }
        guard let pool = configuration.pools[intent.environment] else {
            invalid(intent, user: user, devices: devices, message: message, source: source,
                    reason: "NoPoolForEnvironment", detail: "no sender pool serves \(intent.environment.rawValue)", outputs: &outputs)
            return []
        }
        do {
            return try enricher.deliveries(for: intent, devices: devices).map { delivery in
                Planned(delivery: delivery, intent: intent, user: user, pool: pool, message: message, source: source)
            }
        } catch {
            invalid(intent, user: user, devices: devices, message: message, source: source,
                    reason: error.code.rawValue, detail: error.description, outputs: &outputs)
            return []
        }
    }

    /// A decoded intent that cannot become notifications: a dead letter and one `invalid` outcome per device.
    private func invalid(_ intent: Intent, user: String?, devices: [RecipientDevice], message: KafkaConsumerMessage, source: SourcePosition,
                         reason: String, detail: String, outputs: inout [KafkaProducerMessage]) {
        outputs.append(deadLetter(reason: reason, detail: detail, source: source, original: message.value ?? [], intentID: intent.id))
        for device in devices {
            var event = intentOutcome(intent, user: user, source: source, reason: reason)
            event.token = device.token.hex
            outputs.append(outcome(event))
        }
    }

    // MARK: Deduplicate

    /// Claims every delivery in one round trip; already finished ones are suppressed, and so is a
    /// second copy of a delivery this batch already claimed. Ones another attempt holds (`pending`)
    /// are left to that attempt.
    private func claim(_ planned: [Planned], outputs: inout [KafkaProducerMessage]) throws -> [Planned] {
        guard !planned.isEmpty else { return [] }
        var claimed: [Planned] = []
        var claimedHere = Set<DeliveryKey>()
        for (delivery, claim) in zip(planned, try idempotency.claim(planned.map(\.key))) {
            switch claim {
            case .claimed:
                claimed.append(delivery)
                claimedHere.insert(delivery.key)
            case .sent, .failed:
                outputs.append(outcome(delivery, .suppressed, reason: "DuplicateIntent"))
            case .pending where claimedHere.contains(delivery.key):
                outputs.append(outcome(delivery, .suppressed, reason: "DuplicateIntent"))
            case .pending:
                continue
            }
        }
        return claimed
    }

    /// Drops duplicate and stale collapse-id deliveries of intents with a dedupe window (their claims
    /// are marked failed, so a redelivery is suppressed too); returns the rest.
    private func applyCollapseWindows(_ claimed: [Planned], outputs: inout [KafkaProducerMessage]) throws -> [Planned] {
        let windowed = claimed.indices.filter { claimed[$0].delivery.collapseID != nil && claimed[$0].intent.dedupeWindow != nil }
        guard !windowed.isEmpty else { return claimed }
        let decisions = try collapse.decide(windowed.map { index in
            let planned = claimed[index]
            return CollapseWindow.Entry(deviceToken: planned.delivery.token, collapseID: planned.delivery.collapseID ?? "",
                                        intentID: planned.intent.id, createdAt: planned.intent.createdAt ?? Self.now(),
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
        for (index, reason) in dropped.sorted(by: { $0.key < $1.key }) {
            outputs.append(outcome(claimed[index], .suppressed, reason: reason))
        }
        try idempotency.markFailed(dropped.keys.map { claimed[$0].key })
        return claimed.indices.filter { dropped[$0] == nil }.map { claimed[$0] }
    }

    // MARK: Send and record

    private func notification(_ planned: Planned) throws -> APNsNotification {
        let delivery = planned.delivery
        return APNsNotification(deviceToken: delivery.token, pushType: delivery.pushType, topic: delivery.topic,
                                priority: delivery.priority, expiration: delivery.expiration,
                                collapseID: try delivery.collapseID.map(CollapseID.init), id: delivery.notificationID,
                                payload: delivery.payload)
    }

    /// Settles the claims by result (accepted → sent, rejected or expired → failed, failed →
    /// released and dead-lettered), one outcome each, and token events for what APNs said about tokens.
    private func record(_ results: [(Planned, DeliveryResult)], outputs: inout [KafkaProducerMessage]) throws {
        var sent: [DeliveryKey] = []
        var failed: [DeliveryKey] = []
        var released: [DeliveryKey] = []
        for (planned, result) in results {
            let status: OutcomeEvent.Status
            switch result.outcome {
            case .accepted:
                status = .accepted
                sent.append(planned.key)
            case .rejected:
                status = .rejected
                failed.append(planned.key)
            case .expired:
                status = .expired
                failed.append(planned.key)
            case .failed:
                status = .failed
                released.append(planned.key)
                outputs.append(deadLetter(reason: "RetriesExhausted", detail: result.failureDetail ?? "the notification could not be handed to APNs",
                                          source: planned.source, original: planned.message.value ?? [], intentID: planned.intent.id))
            }
            outputs.append(outcome(planned, status, reason: result.reason?.description ?? result.failureDetail, result: result))
            if let reason = result.reason, let kind = TokenEvent.kind(for: reason) {
                outputs.append(try tokenEvent(kind, reason: reason.description, planned: planned, timestamp: result.timestamp))
            }
        }
        if !sent.isEmpty { try idempotency.markSent(sent) }
        if !failed.isEmpty { try idempotency.markFailed(failed) }
        if !released.isEmpty { try idempotency.release(released) }
    }

    /// The token event; `unregistered` and `expired` also remove the token from the registry unless
    /// it was registered again after APNs' timestamp.
    private func tokenEvent(_ kind: TokenEvent.Kind, reason: String, planned: Planned, timestamp: Int64?) throws -> KafkaProducerMessage {
        let now = Self.now()
        let removed = kind == .suspect ? false
            : try registry.remove(app: planned.intent.app, environment: planned.intent.environment.rawValue,
                                  token: planned.delivery.token, invalidatedAt: timestamp ?? now)
        let event = TokenEvent(kind: kind, reason: reason, app: planned.intent.app, environment: planned.intent.environment.rawValue,
                               token: planned.delivery.token.hex, user: planned.user, intentID: planned.intent.id,
                               apnsTimestamp: timestamp, observedAt: now, removedFromRegistry: removed)
        return KafkaProducerMessage(topic: configuration.tokenEventsTopic, key: Array(event.token.utf8), value: event.encoded)
    }

    // MARK: Output records

    /// The outcome fields every delivery of `intent` shares.
    private func intentOutcome(_ intent: Intent, user: String?, source: SourcePosition, reason: String? = nil,
                               status: OutcomeEvent.Status = .invalid) -> OutcomeEvent {
        var template: String?
        if case .template(let name) = intent.content { template = name }
        return OutcomeEvent(intentID: intent.id, app: intent.app, environment: intent.environment.rawValue, status: status,
                            source: source, completedAt: Self.now(), user: user, template: template, reason: reason,
                            createdAt: intent.createdAt)
    }

    private func outcome(_ planned: Planned, _ status: OutcomeEvent.Status, reason: String?, result: DeliveryResult? = nil) -> KafkaProducerMessage {
        let delivery = planned.delivery
        var event = intentOutcome(planned.intent, user: planned.user, source: planned.source, reason: reason, status: status)
        event.token = delivery.token.hex
        event.pushType = delivery.pushType.rawValue
        event.topic = delivery.topic
        event.collapseID = delivery.collapseID
        event.apnsID = delivery.notificationID.description
        event.locale = delivery.locale?.resolved
        event.localeFellBack = delivery.locale?.isFallback ?? false
        if let result {
            event.apnsUniqueID = result.apnsUniqueID
            event.apnsStatus = result.status
            event.apnsTimestamp = result.timestamp
            event.attempts = result.attempts
            event.latencyMilliseconds = result.latencyMilliseconds
        }
        return outcome(event)
    }

    private func outcome(_ event: OutcomeEvent) -> KafkaProducerMessage {
        KafkaProducerMessage(topic: configuration.outcomesTopic, key: Array(event.intentID.utf8), value: event.encoded)
    }

    private func deadLetter(reason: String, detail: String, source: SourcePosition, original: [UInt8], intentID: String?) -> KafkaProducerMessage {
        let letter = DeadLetter(reason: reason, detail: detail, source: source, original: original, intentID: intentID, recordedAt: Self.now())
        return KafkaProducerMessage(topic: configuration.dlqTopic, key: intentID.map { Array($0.utf8) }, value: letter.encoded)
    }

    /// Unix milliseconds.
    private static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }
}
