import APNsClient
import IntentCore
import PushlineConfiguration
import Runtime

extension WorkerConfiguration {
    /// The worker of one pipeline as `pushline run` runs it: `settings`' Kafka and Redis, the
    /// pipeline's topics, batching, limits and dedupe, sending through `pool` (its environment names
    /// the intents it takes: `production`, `sandbox`, or both for a simulator or proxy). The local
    /// stack (`LocalPipeline`) builds its worker here too. The key-encryption key is left to the caller,
    /// which reads its file.
    public init(pipeline: PipelineConfiguration, pool: APNsPoolConfiguration, settings: PushlineConfiguration) {
        let pools: [Intent.Environment: String] = switch pool.environment.name {
        case Intent.Environment.production.rawValue: [.production: pool.name]
        case Intent.Environment.sandbox.rawValue: [.sandbox: pool.name]
        default: [.production: pool.name, .sandbox: pool.name]
        }
        self.init(consumer: settings.kafka.consumerConfiguration(for: pipeline, pipelines: settings.pipelines.count),
                  producer: settings.kafka.producerConfiguration, redis: settings.redis, pools: pools)
        outcomesTopic = pipeline.outputs.outcomes
        tokenEventsTopic = pipeline.outputs.tokenEvents
        dlqTopic = pipeline.outputs.dlq
        pipelineName = pipeline.name
        batchSize = pipeline.batchSize
        batchLinger = pipeline.batchLinger
        concurrency = pipeline.concurrency
        maximumInFlight = pipeline.maximumInFlight
        redisUnreachable = pipeline.redisUnreachable == .failOpen ? .failOpen : .pause
        maximumIntentBytes = pipeline.maximumIntentBytes
        shutdownDeadline = settings.shutdown.deadline
        idempotency.pendingMilliseconds = pipeline.dedupe.pendingTTL.wholeMilliseconds
        idempotency.finishedMilliseconds = pipeline.dedupe.sentTTL.wholeMilliseconds
        collapseWindowSeconds = pipeline.dedupe.collapseWindow.wholeMilliseconds / 1000
        onUncertain = pipeline.dedupe.onUncertain
        ownerTTL = pipeline.dedupe.ownerTTL
        policies = pipeline.policies
    }
}
