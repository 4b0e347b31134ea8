import APNsCore
import Kafka
import Pipeline
import PushlineConfiguration
import Telemetry

/// The worker's metrics (names, labels and queries in `docs/telemetry.md`), every one labelled with
/// the pipeline. Members whose labels are fixed are kept; the others are looked up per batch.
struct WorkerMetrics: Sendable {
    /// Deliveries per sent batch.
    static let batchBuckets: [Double] = [1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000]
    /// Seconds from the intent's Kafka timestamp to the outcome's acknowledgement.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
    /// The `reason` label of an outcome without one.
    static let absentReason = "none"

    let pipeline: String
    private let consumed: MetricFamily<Counter>
    private let deliveries: MetricFamily<Counter>
    private let suppressed: MetricFamily<Counter>
    private let deadLetters: MetricFamily<Counter>
    private let tokenEvents: MetricFamily<Counter>
    private let lag: MetricFamily<Gauge>
    private let lagSeconds: MetricFamily<Gauge>
    private let outputsReplaced: MetricFamily<Counter>
    private let outputsDropped: MetricFamily<Counter>
    private let outputsRetried: MetricFamily<Counter>
    let batchDeliveries: Histogram
    let endToEndLatency: Histogram
    let inFlight: Gauge
    let paused: Gauge
    let redisAvailable: Gauge
    let kafkaBrokersUp: Gauge
    /// 1 while the worker is ready (its `/readyz` part), else 0.
    let ready: Gauge
    /// 1 while every APNs pool the worker sends to can connect, else 0.
    let apnsReachable: Gauge
    let dedupeSkipped: Counter
    let recordedBeforeClaims: Counter
    /// Deliveries of redelivered messages that were decided already: their outcome emitted again,
    /// or nothing because Kafka has it.
    let redeliveredReemitted: Counter
    let redeliveredRecorded: Counter
    /// Deliveries a dead worker left `pending` at APNs: sent again (`resend`) or not (`skip`).
    let uncertainResent: Counter
    let uncertainSkipped: Counter
    /// Priority lanes and throttles.
    let lanes: LaneMetrics
    /// Live Activity updates sent at priority 5 because their activity's priority-10 budget was spent.
    let priorityLowered: Counter
    /// Deferred deliveries (quiet hours) released: their release record acknowledged by Kafka and
    /// their entry completed in the deferred store.
    let deferredReleased: Counter
    /// Deferred-store entries taken whose bodies are not release records: reported, left in the store.
    let deferredUnreadable: Counter
    private let interruptionLevels: MetricFamily<Counter>

    init(registry: MetricsRegistry, pipeline: String, lanes: LanesConfiguration = LanesConfiguration(),
         throttles: [ThrottleConfiguration] = []) throws(MetricsRegistryError) {
        self.pipeline = pipeline
        self.lanes = try LaneMetrics(registry: registry, pipeline: pipeline, lanes: lanes, throttles: throttles)
        consumed = try registry.makeCounterFamily(name: "pushline_intents_consumed_total", labelNames: ["pipeline", "topic"],
                                                  help: "Intent messages taken from Kafka.")
        deliveries = try registry.makeCounterFamily(name: "pushline_deliveries_total", labelNames: ["pipeline", "status", "reason"],
                                                    help: "Outcome events produced, by status and reason.")
        suppressed = try registry.makeCounterFamily(name: "pushline_suppressed_total", labelNames: ["pipeline", "kind"],
                                                    help: "Deliveries suppressed: duplicate_intent, duplicate_collapse, stale_collapse, frequency_capped, background_budget.")
        deadLetters = try registry.makeCounterFamily(name: "pushline_dead_letters_total", labelNames: ["pipeline", "reason"],
                                                     help: "Records written to the dead-letter topic, by reason.")
        tokenEvents = try registry.makeCounterFamily(name: "pushline_token_events_total", labelNames: ["pipeline", "kind"],
                                                     help: "Token events written: unregistered, expired, suspect.")
        lag = try registry.makeGaugeFamily(name: "pushline_consumer_lag", labelNames: ["pipeline", "topic", "partition"],
                                           help: "Messages between the stored offset (the watermark) and the partition's high watermark.")
        lagSeconds = try registry.makeGaugeFamily(
            name: "pushline_consumer_lag_seconds", labelNames: ["pipeline", "topic", "partition"],
            help: "While the partition has lag: age of the newest message taken from it (Kafka timestamp); 0 without lag.")
        outputsReplaced = try registry.makeCounterFamily(
            name: "pushline_outputs_replaced_total", labelNames: ["pipeline", "topic", "reason"],
            help: "Records Kafka refused for good (reason: its error code), replaced by a stand-in with their texts cut short.")
        outputsDropped = try registry.makeCounterFamily(
            name: "pushline_outputs_dropped_total", labelNames: ["pipeline", "topic", "reason"],
            help: "Stand-ins Kafka refused for good too: the record is lost, its message completed anyway.")
        outputsRetried = try registry.makeCounterFamily(
            name: "pushline_outputs_retried_total", labelNames: ["pipeline", "topic", "reason"],
            help: "Records produced again after Kafka refused them for a reason that may pass (timeout, broker down, authorization).")
        batchDeliveries = try registry.makeHistogram(label: "pushline_batch_deliveries", dimensions: [("pipeline", pipeline)],
                                                     buckets: Self.batchBuckets, help: "Deliveries per batch handed to the sender.")
        endToEndLatency = try registry.makeHistogram(
            label: "pushline_end_to_end_latency_seconds", dimensions: [("pipeline", pipeline)], buckets: Self.latencyBuckets,
            help: "From the intent's Kafka message timestamp to the outcome's acknowledgement by Kafka.")
        inFlight = try registry.makeGauge(label: "pushline_inflight_deliveries", dimensions: [("pipeline", pipeline)],
                                          help: "Deliveries taken and not yet recorded.")
        paused = try registry.makeGauge(label: "pushline_consumer_paused", dimensions: [("pipeline", pipeline)],
                                        help: "1 while the worker holds its partitions paused (saturation or Redis outage).")
        redisAvailable = try registry.makeGauge(label: "pushline_redis_available", dimensions: [("pipeline", pipeline)],
                                                help: "1 while Redis answers the worker, else 0.")
        kafkaBrokersUp = try registry.makeGauge(label: "pushline_kafka_brokers_up", dimensions: [("pipeline", pipeline)],
                                                help: "Kafka brokers the worker's consumer is connected to; 0 while Kafka is out of reach.")
        ready = try registry.makeGauge(label: "pushline_worker_ready", dimensions: [("pipeline", pipeline)],
                                       help: "1 while the worker is ready (joined, Kafka, Redis and its APNs pools usable), else 0.")
        apnsReachable = try registry.makeGauge(label: "pushline_apns_reachable", dimensions: [("pipeline", pipeline)],
                                               help: "1 while every APNs pool the worker sends to can connect, else 0.")
        dedupeSkipped = try registry.makeCounter(label: "pushline_dedupe_skipped_total", dimensions: [("pipeline", pipeline)],
                                                 help: "Deliveries sent without claims or collapse windows (redis_unreachable: fail_open).")
        recordedBeforeClaims = try registry.makeCounter(
            label: "pushline_outcomes_before_claims_total", dimensions: [("pipeline", pipeline)],
            help: "Outcomes produced while Redis was out, their claims settled once it answers (redis_unreachable: fail_open).")
        let redelivered = try registry.makeCounterFamily(
            name: "pushline_redelivered_deliveries_total", labelNames: ["pipeline", "decision"],
            help: "Deliveries of redelivered messages decided before: reemitted (their outcome again), recorded (nothing: Kafka has it).")
        redeliveredReemitted = redelivered.metric(labelValues: [pipeline, "reemitted"])
        redeliveredRecorded = redelivered.metric(labelValues: [pipeline, "recorded"])
        let uncertain = try registry.makeCounterFamily(
            name: "pushline_uncertain_deliveries_total", labelNames: ["pipeline", "decision"],
            help: "Deliveries a dead worker left pending at APNs (dedupe.on_uncertain): resent, or skipped (outcome unknown).")
        uncertainResent = uncertain.metric(labelValues: [pipeline, "resent"])
        uncertainSkipped = uncertain.metric(labelValues: [pipeline, "skipped"])
        priorityLowered = try registry.makeCounter(
            label: "pushline_live_activity_priority_lowered_total", dimensions: [("pipeline", pipeline)],
            help: "Live Activity updates sent at priority 5 because their activity's priority-10 budget was spent.")
        deferredReleased = try registry.makeCounter(
            label: "pushline_deferred_released_total", dimensions: [("pipeline", pipeline)],
            help: "Deferred deliveries (quiet hours) released: their release record is in Kafka and their entry completed.")
        deferredUnreadable = try registry.makeCounter(
            label: "pushline_deferred_unreadable_total", dimensions: [("pipeline", pipeline)],
            help: "Deferred-store entries taken whose body does not begin as a release record (not written by a worker): left in the store, not released.")
        interruptionLevels = try registry.makeCounterFamily(
            name: "pushline_interruption_level_deliveries_total", labelNames: ["pipeline", "app", "level"],
            help: "Alert deliveries handed to the sender, by app and interruption level (unset counts as active).")
        redisAvailable.set(to: 1)
        apnsReachable.set(to: 1)
    }

    /// Counts messages taken, and keeps in `newest` each partition's newest Kafka timestamp.
    func consumed(_ messages: [KafkaConsumerMessage], newest: inout [KafkaTopicPartition: Int64]) {
        var counts: [String: Int] = [:]
        // A partition's messages come in offset order, in runs: counted a run at a time (one lookup
        // per run, not per message), and the last of a run is its newest.
        var runStart = 0
        for (index, message) in messages.enumerated() {
            guard index == messages.count - 1 || messages[index + 1].topicPartition != message.topicPartition else { continue }
            counts[message.topicPartition.topic, default: 0] += index + 1 - runStart
            runStart = index + 1
            if let timestamp = message.timestamp { newest[message.topicPartition] = timestamp }
        }
        for (topic, count) in counts { consumed.metric(labelValues: [pipeline, topic]).increment(by: count) }
    }

    /// Counts produced records by what they are: one count per run of records with the same labels
    /// (the outcomes of a batch mostly share theirs), without building label keys per record.
    func produced(_ outputs: [WorkerOutput]) {
        var start = outputs.startIndex
        while start < outputs.endIndex {
            var end = start + 1
            while end < outputs.endIndex, Self.sameLabels(outputs[start].kind, outputs[end].kind) { end += 1 }
            count(outputs[start].kind, end - start)
            start = end
        }
    }

    private func count(_ kind: WorkerOutput.Kind, _ records: Int) {
        switch kind {
        case .outcome(let status, let reason, _):
            deliveries.metric(labelValues: [pipeline, status.rawValue, reason ?? Self.absentReason]).increment(by: records)
            if status == .suppressed, let kind = Self.suppressionKind(reason) {
                suppressed.metric(labelValues: [pipeline, kind]).increment(by: records)
            }
        case .deadLetter(let reason):
            deadLetters.metric(labelValues: [pipeline, reason]).increment(by: records)
        case .tokenEvent(let kind):
            tokenEvents.metric(labelValues: [pipeline, kind.rawValue]).increment(by: records)
        }
    }

    /// Whether two records are counted under the same labels.
    private static func sameLabels(_ first: WorkerOutput.Kind, _ second: WorkerOutput.Kind) -> Bool {
        switch (first, second) {
        case (.outcome(let status, let reason, _), .outcome(let otherStatus, let otherReason, _)): status == otherStatus && reason == otherReason
        case (.deadLetter(let reason), .deadLetter(let otherReason)): reason == otherReason
        case (.tokenEvent(let kind), .tokenEvent(let otherKind)): kind == otherKind
        default: false
        }
    }

    /// Counts a record Kafka refused for good: replaced by its stand-in, or (a stand-in refused too) dropped.
    func refused(_ output: WorkerOutput, _ error: KafkaError) {
        let family = output.isStandIn ? outputsDropped : outputsReplaced
        family.metric(labelValues: [pipeline, output.record.topic, error.code.name]).increment()
    }

    /// Counts a record to be produced again after a refusal that may pass.
    func retried(_ output: WorkerOutput, _ error: KafkaError) {
        outputsRetried.metric(labelValues: [pipeline, output.record.topic, error.code.name]).increment()
    }

    /// Lag in messages and in time. In time: 0 without lag, else the age at `now` (Unix ms) of the
    /// newest message taken from the partition (`newest`): while the worker keeps up that is the
    /// fetch delay; while it is stuck (paused, slow) it grows with the wait. No sample until a
    /// message of a lagging partition was taken.
    func lag(_ lag: [KafkaTopicPartition: KafkaPartitionLag], newest: [KafkaTopicPartition: Int64], now: Int64) {
        for (partition, lag) in lag {
            guard let behind = lag.stored ?? lag.committed else { continue }
            let labels = [pipeline, partition.topic, String(partition.partition)]
            self.lag.metric(labelValues: labels).record(behind)
            if behind == 0 {
                lagSeconds.metric(labelValues: labels).record(0)
            } else if let timestamp = newest[partition] {
                lagSeconds.metric(labelValues: labels).record(Double(max(0, now - timestamp)) / 1000)
            }
        }
    }

    /// Counts the alerts of deliveries about to be sent by app and interruption level: one count per
    /// run of deliveries with the same labels (an intent's devices share theirs).
    func interruptionLevels(_ sending: [PlannedDelivery]) {
        // Runs of one app and level, the deliveries read by index where they lie (a loop over them,
        // and a run's app kept aside, copied them per delivery).
        func level(_ index: Int) -> InterruptionLevel { sending[index].delivery.policy.interruptionLevel ?? .active }
        var first: Int?
        var count = 0
        for index in sending.indices where sending[index].delivery.pushType == .alert {
            if let start = first, sending[start].app == sending[index].app, level(start) == level(index) {
                count += 1
                continue
            }
            if let start = first { countInterruptionLevel(of: sending[start], level(start), count) }
            first = index
            count = 1
        }
        if let start = first { countInterruptionLevel(of: sending[start], level(start), count) }
    }

    private func countInterruptionLevel(of planned: PlannedDelivery, _ level: InterruptionLevel, _ count: Int) {
        interruptionLevels.metric(labelValues: [pipeline, planned.app, level.rawValue]).increment(by: count)
    }

    /// `duplicate_intent`, `duplicate_collapse`, `stale_collapse`, `frequency_capped`, `background_budget` from an outcome's reason.
    private static func suppressionKind(_ reason: String?) -> String? {
        switch reason {
        case "DuplicateIntent": "duplicate_intent"
        case "DuplicateCollapse": "duplicate_collapse"
        case "StaleCollapse": "stale_collapse"
        case "FrequencyCapped": "frequency_capped"
        case "BackgroundBudget": "background_budget"
        default: nil
        }
    }
}
