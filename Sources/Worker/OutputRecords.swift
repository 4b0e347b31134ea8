import APNsClient
import Enrichment
import Kafka
import Pipeline
import Runtime

/// Builds the worker's Kafka records: outcome events, dead letters and token events, addressed to
/// the pipeline's output topics.
struct OutputRecords: Sendable {
    let outcomesTopic: String
    let tokenEventsTopic: String
    let dlqTopic: String
    /// The worker's wall clock (``WorkerConfiguration/wallClock``): the records' timestamps.
    let wallClock: WallClock

    /// The outcome of a message that is not a v1 intent: no intent id, app or environment could be
    /// read, so it names the source position instead.
    func undecodable(reason: String, source: SourcePosition, entry: MessageLedger.EntryID) -> WorkerOutput {
        outcome(OutcomeEvent(intentID: "\(source.topic):\(source.partition):\(source.offset)", app: "unknown",
                             environment: Intent.Environment.production.rawValue, status: .invalid,
                             source: source, completedAt: now(), reason: reason), entry: entry)
    }

    /// An outcome shared by every delivery of `intent` (no device, or one set afterwards).
    func intentOutcome(_ intent: Intent, user: String?, source: SourcePosition, reason: String? = nil,
                       status: OutcomeEvent.Status = .invalid) -> OutcomeEvent {
        unsentEvent(intentID: intent.id, app: intent.app, environment: intent.environment, user: user, template: intent.templateName,
                createdAt: intent.createdAt, source: source, reason: reason, status: status)
    }

    /// The `invalid` outcome of a release that carries its delivery (``ReleaseRecord/planned(_:)``)
    /// but cannot be sent: its intent's fields and its device.
    func releaseOutcome(_ release: ReleaseRecord.Planned, source: SourcePosition, reason: String) -> OutcomeEvent {
        let origin = release.origin
        var event = unsentEvent(intentID: origin.intentID, app: origin.app, environment: release.delivery.environment, user: origin.user,
                            template: origin.template, createdAt: origin.createdAt, source: source, reason: reason, status: .invalid)
        event.token = release.delivery.token.hex
        return event
    }

    /// An outcome decided now, before any device was sent to.
    private func unsentEvent(intentID: String, app: String, environment: Intent.Environment, user: String?, template: String?,
                             createdAt: Int64?, source: SourcePosition, reason: String?, status: OutcomeEvent.Status) -> OutcomeEvent {
        OutcomeEvent(intentID: intentID, app: app, environment: environment.rawValue, status: status, source: source,
                     completedAt: now(), user: user, template: template, reason: reason, createdAt: createdAt)
    }

    /// The records of a sent delivery that need no Redis — its outcome (`unknown`/`UncertainDelivery`
    /// for one the sender did not resend because APNs may have taken it), and a dead letter when its
    /// retries ran out (`RetriesExhausted`) — and what its claim keeps of the outcome, decided at
    /// `completedAt` (Unix milliseconds). `originals` summarises the message for the dead letter,
    /// once for the deliveries of one message that come together.
    func sent(_ planned: PlannedDelivery, _ result: DeliveryResult, completedAt: Int64,
              originals: inout LastOriginal) -> (outcome: WorkerOutput, deadLetter: WorkerOutput?, settled: SettledOutcome) {
        let status: OutcomeEvent.Status = switch result.outcome {
        case .accepted: .accepted
        case .rejected: .rejected
        case .expired: .expired
        case .failed: .failed
        // APNs may have taken it and `dedupe.on_uncertain` is `skip`: not sent again.
        case .uncertain: .unknown
        }
        let reason = result.outcome == .uncertain ? "UncertainDelivery" : result.reason?.description ?? result.failureDetail
        let decided = SettledOutcome(source: planned.source, status: status, completedAt: completedAt,
                                     reason: reason, apnsUniqueID: result.apnsUniqueID,
                                     apnsStatus: result.status, apnsTimestamp: result.timestamp, attempts: result.attempts,
                                     latencyMilliseconds: result.latencyMilliseconds)
        let outcome = outcome(planned, decided)
        guard status == .failed else { return (outcome, nil, decided) }
        return (outcome, deadLetter(reason: "RetriesExhausted", detail: result.failureDetail ?? "the notification could not be handed to APNs",
                                    source: planned.source, original: originals.of(planned.message), intentID: planned.intentID,
                                    entry: planned.entry),
                decided)
    }

    /// What is decided for a planned delivery that is not sent (suppressed): its status and reason, now.
    func decided(_ planned: PlannedDelivery, _ status: OutcomeEvent.Status, reason: String?, releaseAt: Int64? = nil) -> SettledOutcome {
        SettledOutcome(source: planned.source, status: status, completedAt: now(), reason: reason, releaseAt: releaseAt)
    }

    /// The outcome of a planned delivery that is not sent, decided now.
    func outcome(_ planned: PlannedDelivery, _ status: OutcomeEvent.Status, reason: String?) -> WorkerOutput {
        outcome(planned, decided(planned, status, reason: reason))
    }

    /// The outcome of one planned delivery: what planning fixed (the intent, the device, the
    /// headers, the locale) with what was `decided` for it — now, or when a settled claim kept it
    /// (a redelivery of the message that decided it re-emits exactly that outcome). Written
    /// straight into the record's bytes: no ``OutcomeEvent`` is built and copied per delivery.
    func outcome(_ planned: PlannedDelivery, _ decided: SettledOutcome) -> WorkerOutput {
        // Field by field from the delivery's object: a local copy of its delivery would retain and
        // release every string of it.
        let value = OutcomeEvent.encoded(
            intentID: planned.intentID, app: planned.app, environment: planned.environment.rawValue, token: planned.delivery.token.hex,
            user: planned.user, template: planned.template, pushType: planned.delivery.pushType.rawValue, topic: planned.delivery.topic,
            collapseID: planned.delivery.collapseID, apnsID: planned.delivery.notificationID,
            locale: planned.delivery.locale?.resolved, localeFellBack: planned.delivery.locale?.isFallback ?? false,
            createdAt: planned.createdAt, decided: decided)
        return WorkerOutput(record: KafkaProducerMessage(topic: outcomesTopic, textKey: planned.intentID, value: value),
                            kind: .outcome(decided.status, reason: decided.reason, decidesDelivery: true), entry: planned.entry)
    }

    /// The record of an outcome that decides no planned delivery (the intent's, or a device's that
    /// was never planned).
    func outcome(_ event: OutcomeEvent, entry: MessageLedger.EntryID) -> WorkerOutput {
        WorkerOutput(record: KafkaProducerMessage(topic: outcomesTopic, textKey: event.intentID, value: event.encoded),
                     kind: .outcome(event.status, reason: event.reason, decidesDelivery: false), entry: entry)
    }

    func deadLetter(reason: String, detail: String, source: SourcePosition, original: DeadLetter.Original, intentID: String?,
                    entry: MessageLedger.EntryID) -> WorkerOutput {
        let letter = DeadLetter(reason: reason, detail: detail, source: source, original: original, intentID: intentID, recordedAt: now())
        // Keyed by the letter's intent id, which is bounded like the rest of it: a dead letter always fits.
        return WorkerOutput(record: KafkaProducerMessage(topic: dlqTopic, textKey: letter.intentID, value: letter.encoded),
                            kind: .deadLetter(reason: reason), entry: entry)
    }

    /// The token event for what APNs said about a delivery's token, or nil when it said nothing;
    /// `removed` tells whether the registry let the token go (never for `suspect`).
    func tokenEvent(_ planned: PlannedDelivery, _ result: DeliveryResult, removed: Bool) -> WorkerOutput? {
        guard let reason = result.reason, let kind = TokenEvent.kind(for: reason) else { return nil }
        let event = TokenEvent(kind: kind, reason: reason.description, app: planned.app, environment: planned.environment.rawValue,
                               token: planned.delivery.token.hex, user: planned.user, intentID: planned.intentID,
                               apnsTimestamp: result.timestamp, observedAt: now(), removedFromRegistry: removed)
        return WorkerOutput(record: KafkaProducerMessage(topic: tokenEventsTopic, textKey: event.token, value: event.encoded),
                            kind: .tokenEvent(event.kind), entry: planned.entry)
    }

    /// Unix milliseconds on the worker's wall clock.
    func now() -> Int64 {
        wallClock.millisecondsSinceEpoch()
    }
}
