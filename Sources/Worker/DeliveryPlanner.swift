import Enrichment
import Kafka
import Pipeline

/// Turns one intent message into its deliveries: decode, recipients, enrich. Pure work that may
/// run on any thread (the worker plans off its own thread); only a `user` recipient needs the
/// token registry, which the caller passes in when it may be asked.
struct DeliveryPlanner: Sendable {
    /// What planning one message gave.
    enum Plan: Sendable {
        /// Its deliveries, and the records decided already (dead letters, `invalid` outcomes).
        case planned([PlannedDelivery], outputs: [WorkerOutput])
        /// It addresses a user, and the token registry was not to be asked: the decoded intent, to be
        /// planned with what the registry found (``plan(_:found:enricher:)``) without decoding it again.
        /// Boxed (`indirect`): inline, the intent (464 bytes) made every plan that size, and every
        /// planned message was copied at that size through the planning's arrays and inbox.
        indirect case needsRegistry(Intent)
    }

    /// A user's devices (with the profile locale) for an intent's app and environment, as the token
    /// registry answered them.
    typealias Registry = (_ user: String, _ intent: Intent) -> [RecipientDevice]

    let pools: [Intent.Environment: String]
    /// Messages larger than this are not decoded (`IntentTooLarge`).
    let maximumIntentBytes: Int
    /// The templates and strings; a reload applies from the next batch of messages planned (each
    /// batch plans with one snapshot, ``CatalogStore/enricher``, taken when its planning starts).
    let catalog: CatalogStore
    let records: OutputRecords

    /// A planner for a worker's pools, writing to its output topics.
    init(configuration: WorkerConfiguration, catalog: CatalogStore) {
        pools = configuration.pools
        maximumIntentBytes = configuration.maximumIntentBytes
        self.catalog = catalog
        records = OutputRecords(outcomesTopic: configuration.outcomesTopic, tokenEventsTopic: configuration.tokenEventsTopic,
                                dlqTopic: configuration.dlqTopic, wallClock: configuration.wallClock)
    }

    /// The plan of one message: decoded, then planned without asking the registry (a user-addressed
    /// intent comes back as ``Plan/needsRegistry(_:)``).
    func plan(_ message: KafkaConsumerMessage, entry: MessageLedger.EntryID, enricher: Enricher) -> Plan {
        switch decode(message, entry: entry) {
        case .decided(let plan): plan
        case .intent(let intent, let release): plan(intent, release: release, message: message, entry: entry, enricher: enricher, registry: nil)
        }
    }

    /// What decoding a message gave.
    enum Decoding {
        /// An intent, or a deferred delivery's release of one to `release`, its one device (a
        /// ``ReleaseRecord`` of version 1).
        case intent(Intent, release: RecipientDevice?)
        /// Planned without decoding an intent: a release that carries its delivery (a
        /// ``ReleaseRecord`` of version 2), or a message that cannot be a v1 intent, or too large
        /// (its dead letter and `invalid` outcome).
        case decided(Plan)
    }

    /// The message's intent (with its release's device, for a ``ReleaseRecord`` of version 1), or
    /// its plan when there is no intent to decode.
    func decode(_ message: KafkaConsumerMessage, entry: MessageLedger.EntryID) -> Decoding {
        let bytes = message.value ?? []
        let intentBytes: [UInt8]
        let release: RecipientDevice?
        switch ReleaseRecord(bytes) {
        case .planned(let planned)?: return .decided(plan(planned, message: message, entry: entry))
        case .intent(let device, let intent)?: (intentBytes, release) = (intent, device)
        case nil: (intentBytes, release) = (bytes, nil)
        }
        do {
            return .intent(try IntentDecoder.decode(intentBytes, maximumBytes: maximumIntentBytes), release: release)
        } catch {
            let source = SourcePosition(message)
            return .decided(.planned([], outputs: [
                records.deadLetter(reason: error.code.rawValue, detail: error.description, source: source, original: DeadLetter.Original(bytes),
                                   intentID: nil, entry: entry),
                records.undecodable(reason: error.code.rawValue, source: source, entry: entry),
            ]))
        }
    }

    /// A release that carries its delivery as planned: that delivery, as a release. When no sender
    /// pool serves its environment any more (the configuration changed while it was deferred), its
    /// dead letter and an `invalid` outcome, as for an intent.
    private func plan(_ release: ReleaseRecord.Planned, message: KafkaConsumerMessage, entry: MessageLedger.EntryID) -> Plan {
        let source = SourcePosition(message)
        let environment = release.delivery.environment
        guard let pool = pools[environment] else {
            let reason = "NoPoolForEnvironment"
            return .planned([], outputs: [
                records.deadLetter(reason: reason, detail: "no sender pool serves \(environment.rawValue)", source: source,
                                   original: DeadLetter.Original(message.value ?? []), intentID: release.origin.intentID, entry: entry),
                records.outcome(records.releaseOutcome(release, source: source, reason: reason), entry: entry),
            ])
        }
        return .planned([PlannedDelivery(release: release, pool: pool, message: message, source: source, entry: entry)], outputs: [])
    }

    /// The deliveries of a decoded intent; one that cannot be delivered becomes a dead letter and
    /// `invalid` outcomes.
    /// - Parameters:
    ///   - enricher: the catalog snapshot of the batch this message is planned in.
    ///   - release: a release's one device (its message a ``ReleaseRecord`` of version 1): planned
    ///     for it alone, with the profile it was deferred with, without asking the registry.
    ///   - registry: nil when the registry has not been asked: a user-addressed intent then gives
    ///     ``Plan/needsRegistry(_:)``.
    func plan(_ intent: Intent, release: RecipientDevice? = nil, message: KafkaConsumerMessage, entry: MessageLedger.EntryID, enricher: Enricher,
              registry: Registry?) -> Plan {
        let source = SourcePosition(message)
        let user: String?
        let devices: [RecipientDevice]
        switch intent.recipients {
        case .tokens:
            user = nil
        case .user(let id):
            user = id
        }
        if var device = release {
            device.environment = intent.environment
            devices = [device]
        } else {
            switch intent.recipients {
            case .tokens(let tokens):
                devices = tokens.map { RecipientDevice(token: $0, environment: intent.environment) }
            case .user(let id):
                guard let registry else { return .needsRegistry(intent) }
                devices = registry(id, intent)
            }
        }
        guard !devices.isEmpty else {
            return .planned([], outputs: [records.outcome(records.intentOutcome(intent, user: user, source: source, reason: "NoRegisteredDevices"),
                                                          entry: entry)])
        }
        guard let pool = pools[intent.environment] else {
            return .planned([], outputs: invalid(intent, user: user, devices: devices, message: message, source: source, entry: entry,
                                                 reason: "NoPoolForEnvironment", detail: "no sender pool serves \(intent.environment.rawValue)"))
        }
        do {
            var deliveries: [PlannedDelivery] = []
            deliveries.reserveCapacity(devices.count)
            // The enricher makes one delivery per device, in the devices' order.
            try enricher.forEachDelivery(for: intent, devices: devices) { delivery in
                let device = devices[deliveries.count]
                deliveries.append(PlannedDelivery(delivery: delivery, intent: intent, user: user, device: device,
                                                  isRelease: release != nil, pool: pool, message: message, source: source, entry: entry))
            }
            return .planned(deliveries, outputs: [])
        } catch {
            return .planned([], outputs: invalid(intent, user: user, devices: devices, message: message, source: source, entry: entry,
                                                 reason: error.code.rawValue, detail: error.description))
        }
    }

    /// Plans decoded user-addressed messages with what one registry round trip found for their users
    /// (``DeliveryStages/recipients(of:)``); one plan per message, in order. Pure work: the worker
    /// does it off its thread (``PlanningTasks/start(_:found:)``), like the planning of every other message.
    func plan(_ messages: [WorkerLoop.MessageToPlan], found: [UserQuery: UserRecipients], enricher: Enricher) -> [Plan] {
        messages.map { planning in
            plan(planning.intent, message: planning.message, entry: planning.entry, enricher: enricher) { user, intent in
                let recipients = found[Self.query(user, intent)]
                return (recipients?.devices ?? []).map {
                    RecipientDevice(token: $0.token, environment: intent.environment, profileLocale: recipients?.locale,
                                    profileTimeZone: recipients?.timeZone)
                }
            }
        }
    }

    /// What the token registry is asked for a user addressed by an intent: its devices and profile
    /// for the intent's app and environment.
    static func query(_ user: String, _ intent: Intent) -> UserQuery {
        UserQuery(user: user, app: intent.app, environment: intent.environment.rawValue)
    }

    /// A decoded intent that cannot become notifications: a dead letter and one `invalid` outcome per device.
    private func invalid(_ intent: Intent, user: String?, devices: [RecipientDevice], message: KafkaConsumerMessage, source: SourcePosition,
                         entry: MessageLedger.EntryID, reason: String, detail: String) -> [WorkerOutput] {
        var outputs = [records.deadLetter(reason: reason, detail: detail, source: source, original: DeadLetter.Original(message.value ?? []),
                                          intentID: intent.id, entry: entry)]
        for device in devices {
            var event = records.intentOutcome(intent, user: user, source: source, reason: reason)
            event.token = device.token.hex
            outputs.append(records.outcome(event, entry: entry))
        }
        return outputs
    }
}
