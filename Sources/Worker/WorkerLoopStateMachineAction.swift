import Kafka
import Pipeline
import Redis

extension WorkerLoop.StateMachine {
    /// Why the partitions are paused — the worker takes none of their messages, holding them in
    /// librdkafka's queues (the `reason` of the `partitions paused` log line).
    enum PauseReason: String, Equatable {
        /// Work waits for Redis under `redis_unreachable: pause`.
        case redis
        /// A pool the worker sends to has its circuit open: what is taken would only be held.
        case apnsCircuit = "apns_circuit"
        /// Records Kafka refused for a reason that may pass wait to be produced again.
        case kafkaProducer = "kafka_producer"
        /// Deliveries in flight (and messages waiting for the registry) reached `max_in_flight`.
        case maximumInFlight = "max_in_flight"
        /// A batch's worth of deliveries waits for a throttle's tokens (docs/policies.md).
        case throttle
    }

    /// What became of a record Kafka refused.
    enum Refusal: Equatable {
        /// Refused for a reason that may pass: produced again after a back-off; whether it is the
        /// first of its round (logged once per round).
        case retrying(firstOfRound: Bool)
        /// Refused for good: its stand-in is produced in its place.
        case replaced
        /// A stand-in refused too: given up, its message completes without it.
        case dropped
        /// The report carried no record: nothing to send again, given up.
        case droppedWithoutRecord
        /// Refused after the producer closed, or after its message was handed back (its partition
        /// revoked or lost): not produced again; the message is left incomplete for the next owner.
        case handedBack
    }

    /// What the ``WorkerLoop`` does for the machine. Actions that give something back (a registry
    /// round trip, a `PING`, the producer's ids, a seal without keys) are answered with the
    /// matching event.
    enum Action {
        /// Plan the polled messages off the loop's thread (``PlanningTasks``); the plans come back
        /// through ``WorkerLoop/StateMachine/planned(_:now:)``.
        case plan([(message: KafkaConsumerMessage, entry: MessageLedger.EntryID)])
        /// Plan these user-addressed messages with one registry round trip off the loop's thread
        /// (``RegistryLookups``), then enriched on the planning tasks (``PlanningTasks/start(_:found:)``):
        /// ``WorkerLoop/StateMachine/plannedWithRegistry(_:for:now:)``, or on an outage
        /// ``WorkerLoop/StateMachine/registryFailed(_:_:now:)``. They count as being planned until then.
        case planWithRegistry([WorkerLoop.MessageToPlan])
        /// Claim the deliveries on the ``RedisStage`` (`ahead`: a batch of the lanes above the
        /// lightest, which the stage runs before the jobs queued in front of it); its answer comes
        /// back through ``WorkerLoop/StateMachine/redisAnswered(_:now:)``.
        case claim([PlannedDelivery], ahead: Bool)
        /// Settle the claims and write the token events of sent deliveries on the ``RedisStage``.
        case record([SentDelivery])
        /// `fail_open` while Redis is out: count the deliveries as sent without deduplication, seal
        /// them without keys (``DeliveryStages/sealWithoutKeys(_:records:)``) and hand the result
        /// to ``WorkerLoop/StateMachine/sealedWithoutKeys(_:refused:)``.
        case sendWithoutClaims([PlannedDelivery])
        /// `fail_open` while Redis is out: build these sent deliveries' token events without the
        /// registry (nothing removed) and hand them, with their records, to
        /// ``WorkerLoop/StateMachine/decided(_:)``.
        case recordWithoutRedis([SentDelivery])
        /// Start a send to the pool (one per pool, APNs topic, and bulk or not: bulk yields to the
        /// others at the sender); its answers come back through
        /// ``WorkerLoop/StateMachine/sendsAnswered(_:now:)`` under this id.
        case send(Int, [PlannedDelivery], pool: String, bulk: Bool, holdingClaims: Bool)
        /// Produce the records (counted), and give their ids to ``WorkerLoop/StateMachine/produced(_:_:)``.
        case produce([WorkerOutput])
        /// Produce records again in the place of refused ones (not counted again), and give their
        /// ids to ``WorkerLoop/StateMachine/produced(_:_:)``.
        case produceAgain([WorkerOutput])
        /// Mark the messages complete in the consumer (their offsets may pass them); the partitions'
        /// watermarks that moved go to Redis.
        case complete([KafkaConsumerMessage])
        /// Ask Redis whether it is back: ``WorkerLoop/StateMachine/redisReached(now:)`` or
        /// ``WorkerLoop/StateMachine/redisFailed(_:now:)``.
        case ping
        /// Pause every assigned partition: take none of their messages (``KafkaConsumer/hold(_:)``).
        case pause(PauseReason)
        /// Resume every assigned partition but those a full lane holds.
        case resume(keepingHeld: Set<KafkaTopicPartition>)
        /// Stop taking these partitions' messages: they fed this lane while it was full (``LaneHolding``).
        case holdLane(String, [KafkaTopicPartition])
        /// Take these partitions' messages again: their lane drained below its low-water mark.
        case releaseLane(String, [KafkaTopicPartition])
        /// Pause these partitions (newly assigned while the others are paused).
        case pausePartitions([KafkaTopicPartition])
        /// Redis was lost (`pushline_redis_available` 0, logged); `waiting`: the worker waits for it
        /// (`pause`), so it is not ready.
        case redisLost(RedisError, waiting: Bool)
        /// Redis answers again.
        case redisRecovered
        /// The messages of these partitions were handed back (logged).
        case handedBack(Set<KafkaTopicPartition>, messages: Int)
        /// A record Kafka refused, with its source message if still tracked, and what became of it
        /// (counted and logged).
        case outputRefused(WorkerOutput?, KafkaError, source: KafkaConsumerMessage?, Refusal)
        /// Outcomes of deliveries Kafka acknowledged: their messages' Kafka timestamps, for the
        /// end-to-end latency.
        case deliveriesDecided(messageTimestamps: [Int64])
        /// A batch of this many deliveries went to the sender.
        case countBatch(Int)
        /// `fail_open`: this many deliveries' records went out before their claims were settled.
        case countRecordedBeforeClaims(Int)
        /// Ask the throttles' token buckets for places (one round trip on the loop's Redis
        /// connection): ``WorkerLoop/StateMachine/tokensTaken(_:now:)``, or on an outage
        /// ``WorkerLoop/StateMachine/tokensFailed(_:now:)``.
        case takeTokens([ThrottleRequest])
        /// With lanes: this many deliveries of each lane were taken into a batch to be claimed and sent.
        case countScheduled([Int])
    }
}
