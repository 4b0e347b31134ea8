@testable import APNsClient
import APNsCore
import Enrichment
import Kafka
import Pipeline
@testable import Worker

/// The worker's path for one intent message, as `WorkerLoop` takes it: decode (with the default
/// `max_intent_bytes`), plan (recipients, enrichment over the repository's templates and strings),
/// then every record the message can lead to — its dead letters and `invalid` outcomes, and for each
/// planned delivery the outcome and dead letter of retries that ran out, its token event and a
/// suppressed outcome — and the stand-in of each. Traps when a record would not fit Kafka's default
/// limit (`message.max.bytes`, 1,000,000 bytes): no input may make the worker produce one.
enum WorkerPlanningFuzz {
    static let kafkaLimit = 1_000_000
    private static let token = try! DeviceToken(String(repeating: "ab", count: 32))

    /// Run from the repository (`make fuzz`): the templates and strings are read from `Config/`.
    private static let planner: DeliveryPlanner = {
        let bootstrap = "127.0.0.1:9"  // never connected: planning is pure
        let configuration = WorkerConfiguration(
            consumer: KafkaConsumerConfiguration(bootstrapServers: bootstrap, groupID: "fuzz", topics: ["pushline.intents"]),
            producer: KafkaProducerConfiguration(bootstrapServers: bootstrap), stores: .inMemory,
            pools: [.sandbox: "sandbox", .production: "production"])
        let catalog = try! CatalogStore(templatesDirectory: "Config/templates", localesDirectory: "Config/locales")
        return DeliveryPlanner(configuration: configuration, catalog: catalog)
    }()

    static func run(_ bytes: [UInt8]) {
        let message = KafkaConsumerMessage(topicPartition: KafkaTopicPartition(topic: "pushline.intents", partition: 0), offset: 7,
                                           key: nil, value: bytes)
        let plan: DeliveryPlanner.Plan?
        switch planner.decode(message, entry: 0) {
        case .decided(let decided):
            plan = decided
        case .intent(let intent, let release):
            // A user has one device in the registry, so user-addressed intents are planned too.
            plan = try? planner.plan(intent, release: release, message: message, entry: 0, enricher: planner.catalog.enricher, registry: { _, intent in
                [RecipientDevice(token: token, environment: intent.environment)]
            })
        }
        guard case .planned(let deliveries, let outputs)? = plan else { return }
        var records = outputs
        var originals = LastOriginal()
        // The deliveries of one message differ in their device only: the records of the first few
        // stand for the rest (an intent with thousands of tokens would otherwise take longer than
        // libFuzzer's timeout in this unoptimised build, writing records alike).
        for planned in deliveries.prefix(16) {
            let failed = DeliveryResult(outcome: .failed, id: planned.delivery.notificationID, deviceToken: planned.delivery.token,
                                        attempts: 3, latencyMilliseconds: 1, failureDetail: "connection lost")
            records += planner.records.sent(planned, failed, completedAt: 1, originals: &originals).outputs
            let rejected = DeliveryResult(outcome: .rejected, id: planned.delivery.notificationID, deviceToken: planned.delivery.token,
                                          status: 410, reason: .unregistered, timestamp: 1, attempts: 1, latencyMilliseconds: 1)
            records += [planner.records.tokenEvent(planned, rejected, removed: true)].compactMap { $0 }
            records.append(planner.records.outcome(planned, .suppressed, reason: "DuplicateIntent"))
        }
        for output in records {
            check(output.record)
            check(output.standIn(after: KafkaError(code: .messageSizeTooLarge, reason: "fuzz")).record)
        }
    }

    private static func check(_ record: KafkaProducerMessage) {
        let size = (record.value?.count ?? 0) + (record.key?.count ?? 0)
        precondition(size < kafkaLimit, "a record of \(size) bytes on \(record.topic) would not fit Kafka's default limit")
    }
}
