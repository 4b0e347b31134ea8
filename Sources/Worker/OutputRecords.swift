import APNsClient
import Enrichment
import Foundation
import Kafka
import Pipeline

/// Builds the worker's Kafka records: outcome events, dead letters and token events, addressed to
/// the pipeline's output topics.
struct OutputRecords: Sendable {
    let outcomesTopic: String
    let tokenEventsTopic: String
    let dlqTopic: String

    /// The outcome of a message that is not a v1 intent: no intent id, app or environment could be
    /// read, so it names the source position instead.
    func undecodable(reason: String, source: SourcePosition, entry: MessageLedger.EntryID) -> WorkerOutput {
        outcome(OutcomeEvent(intentID: "\(source.topic):\(source.partition):\(source.offset)", app: "unknown",
                             environment: Intent.Environment.production.rawValue, status: .invalid,
                             source: source, completedAt: Self.now(), reason: reason), entry: entry)
    }

    /// An outcome shared by every delivery of `intent` (no device, or one set afterwards).
    func intentOutcome(_ intent: Intent, user: String?, source: SourcePosition, reason: String? = nil,
                       status: OutcomeEvent.Status = .invalid) -> OutcomeEvent {
        var template: String?
        if case .template(let name) = intent.content { template = name }
        return OutcomeEvent(intentID: intent.id, app: intent.app, environment: intent.environment.rawValue, status: status,
                            source: source, completedAt: Self.now(), user: user, template: template, reason: reason,
                            createdAt: intent.createdAt)
    }

    /// The records of a sent delivery that need no Redis — its outcome, and a dead letter when its
    /// retries ran out (`RetriesExhausted`) — and what its claim keeps of the outcome.
    func sent(_ planned: PlannedDelivery, _ result: DeliveryResult) -> (outputs: [WorkerOutput], settled: SettledOutcome) {
        let status: OutcomeEvent.Status = switch result.outcome {
        case .accepted: .accepted
        case .rejected: .rejected
        case .expired: .expired
        case .failed: .failed
        }
        let event = outcomeEvent(planned, status, reason: result.reason?.description ?? result.failureDetail, result: result)
        let outcome = outcome(event, entry: planned.entry, decidesDelivery: true)
        guard status == .failed else { return ([outcome], SettledOutcome(event)) }
        return ([deadLetter(reason: "RetriesExhausted", detail: result.failureDetail ?? "the notification could not be handed to APNs",
                            source: planned.source, original: planned.message.value ?? [], intentID: planned.intent.id, entry: planned.entry),
                 outcome], SettledOutcome(event))
    }

    /// The outcome of one planned delivery, with APNs' answer when it was sent.
    func outcome(_ planned: PlannedDelivery, _ status: OutcomeEvent.Status, reason: String?, result: DeliveryResult? = nil) -> WorkerOutput {
        outcome(outcomeEvent(planned, status, reason: reason, result: result), entry: planned.entry, decidesDelivery: true)
    }

    /// The outcome a settled claim kept, emitted again for a redelivery of the message that decided
    /// it: built from the delivery planned again, with the kept fields put back.
    func reemitted(_ planned: PlannedDelivery, _ settled: SettledOutcome) -> WorkerOutput {
        var event = outcomeEvent(planned, settled.status, reason: settled.reason)
        settled.restore(into: &event)
        return outcome(event, entry: planned.entry, decidesDelivery: true)
    }

    /// The outcome event of one planned delivery, with APNs' answer when it was sent.
    func outcomeEvent(_ planned: PlannedDelivery, _ status: OutcomeEvent.Status, reason: String?, result: DeliveryResult? = nil) -> OutcomeEvent {
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
        return event
    }

    func outcome(_ event: OutcomeEvent, entry: MessageLedger.EntryID, decidesDelivery: Bool = false) -> WorkerOutput {
        WorkerOutput(record: KafkaProducerMessage(topic: outcomesTopic, key: Array(event.intentID.utf8), value: event.encoded),
                     kind: .outcome(event.status, reason: event.reason, decidesDelivery: decidesDelivery), entry: entry)
    }

    func deadLetter(reason: String, detail: String, source: SourcePosition, original: [UInt8], intentID: String?,
                    entry: MessageLedger.EntryID) -> WorkerOutput {
        let letter = DeadLetter(reason: reason, detail: detail, source: source, original: original, intentID: intentID, recordedAt: Self.now())
        return WorkerOutput(record: KafkaProducerMessage(topic: dlqTopic, key: intentID.map { Array($0.utf8) }, value: letter.encoded),
                            kind: .deadLetter(reason: reason), entry: entry)
    }

    /// The token event for what APNs said about a delivery's token, or nil when it said nothing;
    /// `removed` tells whether the registry let the token go (never for `suspect`).
    func tokenEvent(_ planned: PlannedDelivery, _ result: DeliveryResult, removed: Bool) -> WorkerOutput? {
        guard let reason = result.reason, let kind = TokenEvent.kind(for: reason) else { return nil }
        let event = TokenEvent(kind: kind, reason: reason.description, app: planned.intent.app, environment: planned.intent.environment.rawValue,
                               token: planned.delivery.token.hex, user: planned.user, intentID: planned.intent.id,
                               apnsTimestamp: result.timestamp, observedAt: Self.now(), removedFromRegistry: removed)
        return WorkerOutput(record: KafkaProducerMessage(topic: tokenEventsTopic, key: Array(event.token.utf8), value: event.encoded),
                            kind: .tokenEvent(event.kind), entry: planned.entry)
    }

    /// Unix milliseconds.
    static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }
}
