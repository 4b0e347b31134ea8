import Enrichment
import Kafka
import Pipeline
import Redis

/// What one worker needs: where intents come from, where outcomes go, Redis, and which sender pool
/// serves each APNs environment.
public struct WorkerConfiguration: Sendable {
    /// The intents topic and consumer group.
    public var consumer: KafkaConsumerConfiguration
    /// The producer for outcomes, token events and dead letters.
    public var producer: KafkaProducerConfiguration
    public var redis: RedisConfiguration
    /// How long `pending`, `sent` and `failed` claims live.
    public var idempotency = IdempotencyStore.Configuration()
    /// The ``APNsSender`` pool name for each environment; an intent for an environment without a
    /// pool becomes an `invalid` outcome with reason `NoPoolForEnvironment`.
    public var pools: [Intent.Environment: String]
    public var outcomesTopic = "pushline.outcomes"
    public var tokenEventsTopic = "pushline.token-events"
    public var dlqTopic = "pushline.dlq"
    /// The most intents taken in one poll: the bound on work in hand.
    public var batchSize = 500
    public var pollTimeout = Duration.milliseconds(100)
    /// How long a batch's outputs may take to be acknowledged by Kafka before the worker stops.
    public var outputTimeout = Duration.seconds(30)

    public init(consumer: KafkaConsumerConfiguration, producer: KafkaProducerConfiguration, redis: RedisConfiguration,
                pools: [Intent.Environment: String]) {
        self.consumer = consumer
        self.producer = producer
        self.redis = redis
        self.pools = pools
    }
}
