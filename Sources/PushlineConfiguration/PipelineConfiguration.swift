import Foundation

/// One pipeline, from a file in `Pipelines/`: where its intents come from, how they are enriched,
/// deduplicated, batched and sent, and where its records go.
public struct PipelineConfiguration: Sendable, CustomStringConvertible {
    /// What to do when Redis cannot be reached.
    public enum RedisUnreachablePolicy: String, Sendable, CaseIterable {
        /// Stop consuming and retry: nothing is sent twice and nothing is lost (the default).
        case pause
        /// Send without deduplication, for teams that prefer availability.
        case failOpen = "fail_open"
    }

    /// The topics the pipeline writes.
    public struct Outputs: Sendable, Equatable {
        public var outcomes = "pushline.outcomes"
        public var tokenEvents = "pushline.token-events"
        public var dlq = "pushline.dlq"

        public init() {}
    }

    /// From the `name` key, else the file name without `.yaml`; it names the pipeline's variables
    /// (`PUSHLINE_PIPELINES_<NAME>_…`).
    public var name: String
    /// The file the pipeline was read from.
    public var file: String
    public var sourceTopic = "pushline.intents"
    /// The consumer group; `kafka.group_id` when the pipeline names none.
    public var sourceGroup: String
    /// Folders of templates (`<app>.yaml`) and locale catalogs.
    public var templatesDirectory: String
    public var localesDirectory: String
    /// The name of an item of `apns.pools`.
    public var apnsPool: String
    /// The worker's `dedupe` settings with this pipeline's overrides.
    public var dedupe: DedupeConfiguration
    /// A batch is flushed when it holds this many deliveries or its first has waited `batchLinger`.
    public var batchSize = 500
    public var batchLinger = Duration.milliseconds(1)
    public var outputs = Outputs()
    /// Batches worked on at once.
    public var concurrency = 4
    /// Deliveries accepted and not yet recorded; beyond it the consumer pauses its partitions.
    public var maximumInFlight = 10_000
    public var redisUnreachable = RedisUnreachablePolicy.pause
    /// Intent messages larger than this are not decoded: `invalid`/`IntentTooLarge` and a dead letter.
    public var maximumIntentBytes = 262_144
    /// How long a delivery may be held through an APNs outage (retried, or waiting while its pool's
    /// circuit is open) before it ends `expired`; its own `apns-expiration` may end it sooner.
    public var maximumHold = Duration.seconds(3_600)
    /// `policies`: TTL, frequency caps, the seeds' budgets (docs/policies.md).
    public var policies = DeliveryPolicies()

    public init(name: String, file: String, sourceGroup: String, templatesDirectory: String, localesDirectory: String,
                apnsPool: String, dedupe: DedupeConfiguration) {
        self.name = name
        self.file = file
        self.sourceGroup = sourceGroup
        self.templatesDirectory = templatesDirectory
        self.localesDirectory = localesDirectory
        self.apnsPool = apnsPool
        self.dedupe = dedupe
    }

    public var description: String {
        "\(name): \(sourceTopic) (group \(sourceGroup)) → pool \(apnsPool), batches of \(batchSize) or "
            + "\(DurationText.format(batchLinger)), \(concurrency) at once, \(maximumInFlight) in flight, "
            + "Redis unreachable: \(redisUnreachable.rawValue), intents up to \(maximumIntentBytes) bytes, "
            + "max hold \(DurationText.format(maximumHold))"
    }

    /// Reads a pipeline file's top section; `worker` gives the defaults and the pools to refer to.
    /// Nil when a required setting is missing or wrong (which is reported).
    static func read(_ section: inout ConfigurationSection, name: String, worker: PushlineConfiguration) -> PipelineConfiguration? {
        defer { section.finish() }
        var source = section.section("source")
        let topic = source.value("topic", .topic)
        let group = source.value("group", .text)
        source.finish()
        let templates = section.requirePresence("templates") ? section.existingDirectory("templates") : nil
        let locales = section.requirePresence("locales") ? section.existingDirectory("locales") : nil
        let pool = section.required("apns_pool", .name)
        let poolNames = worker.apns.declaredPoolNames
        if let pool, !poolNames.contains(pool) {
            let known = poolNames.isEmpty ? "none are defined" : "defined: \(poolNames.sorted().joined(separator: ", "))"
            section.report(.unknownReference, "apns_pool", at: section.origin("apns_pool"),
                           "\"\(pool)\" is not a pool of apns.pools (\(known))")
        }
        var dedupe = worker.dedupe
        var dedupeSection = section.section("dedupe")
        dedupe.read(&dedupeSection)
        var batch = section.section("batch")
        let batchSize = batch.value("size", .integer(1...10_000))
        let linger = batch.value("linger", .duration(.zero...Duration.seconds(10)))
        batch.finish()
        var outputsSection = section.section("outputs")
        var outputs = Outputs()
        if let topic = outputsSection.value("outcomes", .topic) { outputs.outcomes = topic }
        if let topic = outputsSection.value("token_events", .topic) { outputs.tokenEvents = topic }
        if let topic = outputsSection.value("dlq", .topic) { outputs.dlq = topic }
        outputsSection.finish()
        let concurrency = section.value("concurrency", .integer(1...64))
        let inFlight = section.value("max_in_flight", .integer(1...1_000_000))
        let policy = section.value("redis_unreachable", ConfigurationValueType<RedisUnreachablePolicy>.choice())
        let intentBytes = section.value("max_intent_bytes", .integer(1_024...67_108_864))
        let maximumHold = section.value("max_hold", .duration(.seconds(1)...Duration.seconds(7 * 86_400)))
        var policies = DeliveryPolicies()
        var policiesSection = section.section("policies")
        policies.read(&policiesSection, poolNames: poolNames)
        guard let templates, let locales, let pool else { return nil }
        var pipeline = PipelineConfiguration(name: name, file: section.file, sourceGroup: group ?? worker.kafka.groupID,
                                             templatesDirectory: templates, localesDirectory: locales, apnsPool: pool, dedupe: dedupe)
        pipeline.sourceTopic = topic ?? pipeline.sourceTopic
        pipeline.batchSize = batchSize ?? pipeline.batchSize
        pipeline.batchLinger = linger ?? pipeline.batchLinger
        pipeline.outputs = outputs
        pipeline.concurrency = concurrency ?? pipeline.concurrency
        pipeline.maximumInFlight = inFlight ?? pipeline.maximumInFlight
        pipeline.redisUnreachable = policy ?? pipeline.redisUnreachable
        pipeline.maximumIntentBytes = intentBytes ?? pipeline.maximumIntentBytes
        pipeline.maximumHold = maximumHold ?? pipeline.maximumHold
        pipeline.policies = policies
        return pipeline
    }
}
