import Pipeline
import PushlineConfiguration
import Telemetry

/// The metrics of priority lanes and throttles (docs/policies.md, docs/telemetry.md), labelled with
/// the pipeline and the lane or the throttle's bucket (`app:<app>`, `campaign:<name>`, `pool:<name>`).
/// A pipeline without lanes has no lane series; one without throttles no throttle series.
struct LaneMetrics: Sendable {
    private let queued: [Gauge]
    private let scheduledTotal: [Counter]
    private let partitionHoldsTotal: [String: Counter]
    private let waitingByThrottle: [Gauge]
    private let grantedTotal: [String: Counter]

    init(registry: MetricsRegistry, pipeline: String, lanes: LanesConfiguration, throttles: [ThrottleConfiguration])
        throws(MetricsRegistryError) {
        let queuedFamily = try registry.makeGaugeFamily(
            name: "pushline_lane_queued", labelNames: ["pipeline", "lane"],
            help: "Planned deliveries waiting in the lane for a batch (read ahead of the sender).")
        let scheduledFamily = try registry.makeCounterFamily(
            name: "pushline_lane_scheduled_total", labelNames: ["pipeline", "lane"],
            help: "Deliveries the lane scheduler took from the lane into batches, to be claimed and sent.")
        let holdsFamily = try registry.makeCounterFamily(
            name: "pushline_lane_partition_holds_total", labelNames: ["pipeline", "lane"],
            help: "Partitions held (their messages not taken) because they fed the lane while it was full (released once it drains).")
        let waitingFamily = try registry.makeGaugeFamily(
            name: "pushline_throttle_waiting", labelNames: ["pipeline", "throttle"],
            help: "Planned deliveries waiting for the throttle's tokens.")
        let grantedFamily = try registry.makeCounterFamily(
            name: "pushline_throttle_granted_total", labelNames: ["pipeline", "throttle"],
            help: "Deliveries the throttle's token bucket let go.")
        queued = lanes.lanes.map { queuedFamily.metric(labelValues: [pipeline, $0.name]) }
        scheduledTotal = lanes.lanes.map { scheduledFamily.metric(labelValues: [pipeline, $0.name]) }
        var holds: [String: Counter] = [:]
        for lane in lanes.lanes { holds[lane.name] = holdsFamily.metric(labelValues: [pipeline, lane.name]) }
        partitionHoldsTotal = holds
        waitingByThrottle = throttles.map { waitingFamily.metric(labelValues: [pipeline, $0.bucket]) }
        var granted: [String: Counter] = [:]
        for throttle in throttles { granted[throttle.bucket] = grantedFamily.metric(labelValues: [pipeline, throttle.bucket]) }
        grantedTotal = granted
    }

    /// What waits now: per lane (in lane order) and per throttle (in the order written).
    func waiting(queued byLane: [Int], held byThrottle: [Int]) {
        for (gauge, count) in zip(queued, byLane) { gauge.record(count) }
        for (gauge, count) in zip(waitingByThrottle, byThrottle) { gauge.record(count) }
    }

    /// Deliveries taken into a batch, per lane.
    func scheduled(_ perLane: [Int]) {
        for (counter, count) in zip(scheduledTotal, perLane) where count > 0 { counter.increment(by: count) }
    }

    /// Partitions held because they fed `lane` while it was full.
    func partitionsHeld(lane: String, _ count: Int) {
        partitionHoldsTotal[lane]?.increment(by: count)
    }

    /// What the buckets granted.
    func granted(_ requests: [ThrottleRequest], _ grants: [ThrottleGrant]) {
        for (request, grant) in zip(requests, grants) where grant.granted > 0 {
            grantedTotal[request.bucket]?.increment(by: grant.granted)
        }
    }
}
