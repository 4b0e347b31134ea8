import APNsClient
import Enrichment
import Kafka
import Pipeline
import PushlineConfiguration
import Redis
import Runtime

/// What one worker needs: where intents come from, where outcomes go, its stores (Redis), which sender pool
/// serves each APNs environment, and how batches are formed, overlapped and bounded.
public struct WorkerConfiguration: Sendable {
    /// What the worker does while Redis cannot be reached.
    public enum RedisUnreachablePolicy: String, Sendable {
        /// Pause the partitions and retry the Redis step with backoff: nothing is sent twice, nothing lost.
        case pause
        /// Send resolved deliveries without claims or collapse windows (counted and logged); what
        /// needs the token registry still waits as with `pause`.
        case failOpen = "fail_open"
    }

    /// Where the worker keeps its idempotency claims, collapse windows and token registry.
    public enum Stores: Sendable {
        /// In Redis: what `pushline run` uses.
        case redis(RedisConfiguration)
        /// In this process (``InMemoryIdempotencyStore``, ``InMemoryCollapseWindow``,
        /// ``InMemoryTokenRegistry``): nothing is shared with other workers nor kept after the
        /// process ends, and Redis outage handling never triggers. For `pushline-dev demo` without
        /// redis-server only; the YAML configuration does not offer it.
        case inMemory
    }

    /// The intents topic and consumer group.
    public var consumer: KafkaConsumerConfiguration
    /// The producer for outcomes, token events and dead letters.
    public var producer: KafkaProducerConfiguration
    public var stores: Stores
    /// How long `pending`, `sent` and `failed` claims live.
    public var idempotency = IdempotencyStore.Configuration()
    /// The collapse window, in seconds, of deliveries with a collapse id whose intent names no
    /// `dedupe_window` (the pipeline's `dedupe.collapse_window`); 0 turns it off for them.
    public var collapseWindowSeconds = 3_600
    /// The ``APNsSender`` pool name for each environment; an intent for an environment without a
    /// pool becomes an `invalid` outcome with reason `NoPoolForEnvironment`.
    public var pools: [Intent.Environment: String]
    /// The `pipeline` label of the worker's metrics and the `pipeline` field of its log lines.
    public var pipelineName = "default"
    public var outcomesTopic = "pushline.outcomes"
    public var tokenEventsTopic = "pushline.token-events"
    public var dlqTopic = "pushline.dlq"
    /// A batch is claimed and sent once it holds this many deliveries…
    public var batchSize = 500
    /// …or its first delivery has waited this long.
    public var batchLinger = Duration.milliseconds(1)
    /// Batches handed to the sender and not yet answered, at most.
    public var concurrency = 4
    /// Deliveries taken and not yet recorded (plus messages waiting for the token registry); at
    /// this many the worker pauses its partitions, below it resumes them.
    public var maximumInFlight = 10_000
    public var redisUnreachable = RedisUnreachablePolicy.pause
    /// An intent message larger than this is not decoded: it becomes an `invalid` outcome with
    /// reason `IntentTooLarge` and a dead letter, and its partition moves on.
    public var maximumIntentBytes = 262_144
    /// How long ``Worker/stop()`` lets in-flight work finish before handing the rest back.
    public var shutdownDeadline = Duration.seconds(30)
    /// How often a delivery whose claim another attempt holds (`pending`) is checked again.
    public var pendingRecheckInterval = Duration.seconds(1)
    /// What a delivery APNs may have taken without an answer becomes (`dedupe.on_uncertain`): one
    /// whose claim a dead worker left `pending`, or (at the sender) one whose stream was lost.
    public var onUncertain = UncertainDeliveryPolicy.resend
    /// How long this worker's liveness key outlives its last renewal (`dedupe.owner_ttl`); it is
    /// renewed, with the pending claims it holds, every third of the shorter of this and the pending TTL.
    public var ownerTTL = Duration.seconds(3)
    /// Opens the key registry's keys for templates that encrypt (docs/service-extension.md); nil:
    /// no key can be read, so every such delivery follows its template's `without_key`.
    public var keyEncryptionKey: KeyEncryptionKey?
    /// The longest wait for the first message of a poll while nothing is in hand.
    public var pollTimeout = Duration.milliseconds(100)
    /// How long a broker may hold a fetch when it has nothing new (`fetch.wait.max.ms`, unless the
    /// consumer configuration sets it): bounds how long a new intent can wait in Kafka once the
    /// worker has caught up.
    public var fetchWait = Duration.milliseconds(10)
    /// How often the consumer lag gauges are refreshed (also librdkafka's statistics interval when
    /// the consumer configuration sets none).
    public var lagInterval = Duration.seconds(1)
    /// The delivery policies (the pipeline's `policies:`, docs/policies.md).
    public var policies = DeliveryPolicies()
    /// How the deferred store (quiet hours) spreads its entries over Redis and how long a release
    /// leases an entry before another worker may take it again.
    public var deferredStore = DeferredStore.Configuration()
    /// The monotonic clock everything the worker measures or times out reads: the batch linger,
    /// pending rechecks, Redis and Kafka back-offs, keep-alives, the drain's deadline. Tests hand it
    /// a ``TestClock``'s clock to move the worker's time themselves.
    public var clock = MonotonicClock.system
    /// The wall clock of the timestamps the worker writes (`completed_at`, `observed_at`,
    /// `recorded_at`, …), of its end-to-end latency, and the delivery policies read (deadlines,
    /// rolling windows): tests move it by hand.
    public var wallClock = WallClock.system

    public init(consumer: KafkaConsumerConfiguration, producer: KafkaProducerConfiguration, stores: Stores,
                pools: [Intent.Environment: String]) {
        self.consumer = consumer
        self.producer = producer
        self.stores = stores
        self.pools = pools
    }

    /// A worker with its stores in Redis.
    public init(consumer: KafkaConsumerConfiguration, producer: KafkaProducerConfiguration, redis: RedisConfiguration,
                pools: [Intent.Environment: String]) {
        self.init(consumer: consumer, producer: producer, stores: .redis(redis), pools: pools)
    }
}
