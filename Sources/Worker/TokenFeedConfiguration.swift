import Kafka
import Pipeline
import Redis
import Runtime

/// What a ``TokenFeed`` needs: the `pushline.tokens` topic and its own consumer group, the producer
/// for dead letters, and Redis.
public struct TokenFeedConfiguration: Sendable {
    /// The token records' topic and the feed's consumer group (not a pipeline's: the feed reads every record).
    public var consumer: KafkaConsumerConfiguration
    /// The producer for dead letters.
    public var producer: KafkaProducerConfiguration
    public var redis: RedisConfiguration
    /// Seals the keys of key records for the encryption key registry; without it, a key record
    /// becomes a dead letter (`MissingKeyEncryptionKey`).
    public var keyEncryptionKey: KeyEncryptionKey?
    public var dlqTopic = "pushline.dlq"
    /// The most records taken in one poll, applied in one Redis round trip.
    public var batchSize = 500
    public var pollTimeout = Duration.milliseconds(100)
    /// How long a batch's dead letters may take to be acknowledged by Kafka before the feed stops.
    public var outputTimeout = Duration.seconds(30)
    /// The monotonic clock of the feed's Redis checks and back-offs (a ``TestClock``'s in tests).
    public var clock = MonotonicClock.system

    public init(consumer: KafkaConsumerConfiguration, producer: KafkaProducerConfiguration, redis: RedisConfiguration) {
        self.consumer = consumer
        self.producer = producer
        self.redis = redis
    }
}
