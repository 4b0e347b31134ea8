import APNsClient
import Telemetry

/// The sender's ``SenderMetrics`` hooks recorded as Prometheus metrics (names, labels and meaning
/// in `docs/telemetry.md`):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `pushline_apns_results_total` | counter | `pool`, `outcome`, `status`, `reason` |
/// | `pushline_apns_latency_seconds` | histogram | `pool`, `outcome` |
/// | `pushline_apns_retries_total` | counter | `pool`, `cause` |
/// | `pushline_apns_token_refreshes_total` | counter | `pool` |
/// | `pushline_apns_connections` | gauge | `pool` |
/// | `pushline_apns_inflight_streams` | gauge | `pool` |
/// | `pushline_apns_free_stream_capacity` | gauge | `pool` |
/// | `pushline_apns_circuit_open` | gauge (0/1) | `pool` |
/// | `pushline_apns_circuit_transitions_total` | counter | `pool`, `state` |
/// | `pushline_apns_circuit_probes_total` | counter | `pool` |
///
/// A missing status or reason is written as `none`, so every result has all four labels. Circuit
/// transitions are also logged (`apns circuit opened` / `apns circuit closed`, with pool and cause)
/// when a logger is given.
public struct SenderMetricsRecorder: SenderMetrics {
    /// Latency buckets in seconds, 1 ms to 10 s: APNs usually answers in tens of milliseconds.
    public static let defaultLatencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// The label value for a missing status or reason.
    public static let absentLabelValue = "none"

    private let results: MetricFamily<Counter>
    private let latency: MetricFamily<Timer>
    private let retries: MetricFamily<Counter>
    private let tokenRefreshes: MetricFamily<Counter>
    private let connections: MetricFamily<Gauge>
    private let inFlightStreams: MetricFamily<Gauge>
    private let freeStreamCapacity: MetricFamily<Gauge>
    private let circuitOpen: MetricFamily<Gauge>
    private let circuitTransitions: MetricFamily<Counter>
    private let circuitProbes: MetricFamily<Counter>
    private let logger: Logger?

    /// Registers the sender's metrics in `registry`; throws only when `registry` already holds one of
    /// these names with another type, other labels or other buckets.
    public init(registry: MetricsRegistry, latencyBuckets: [Double] = defaultLatencyBuckets,
                logger: Logger? = nil) throws(MetricsRegistryError) {
        self.logger = logger
        results = try registry.makeCounterFamily(
            name: "pushline_apns_results_total", labelNames: ["pool", "outcome", "status", "reason"],
            help: "Notifications finished by the sender, by outcome, last APNs status and reason.")
        latency = try registry.makeTimerFamily(
            name: "pushline_apns_latency_seconds", labelNames: ["pool", "outcome"], buckets: latencyBuckets,
            help: "From submission to the sender until the final answer or failure, retries included.")
        retries = try registry.makeCounterFamily(
            name: "pushline_apns_retries_total", labelNames: ["pool", "cause"],
            help: "Requests that will be sent again, by cause (APNs reason or connection).")
        tokenRefreshes = try registry.makeCounterFamily(
            name: "pushline_apns_token_refreshes_total", labelNames: ["pool"],
            help: "Provider tokens signed anew or adopted by a connection.")
        connections = try registry.makeGaugeFamily(
            name: "pushline_apns_connections", labelNames: ["pool"], help: "Open HTTP/2 connections to APNs.")
        inFlightStreams = try registry.makeGaugeFamily(
            name: "pushline_apns_inflight_streams", labelNames: ["pool"], help: "Requests sent and not yet answered.")
        freeStreamCapacity = try registry.makeGaugeFamily(
            name: "pushline_apns_free_stream_capacity", labelNames: ["pool"],
            help: "Streams the open connections could still take under APNs' concurrent-stream limits.")
        circuitOpen = try registry.makeGaugeFamily(
            name: "pushline_apns_circuit_open", labelNames: ["pool"],
            help: "1 while the pool's circuit is open (APNs out: only probes are sent), else 0.")
        circuitTransitions = try registry.makeCounterFamily(
            name: "pushline_apns_circuit_transitions_total", labelNames: ["pool", "state"],
            help: "Changes of the pool's circuit, by the state entered (open, closed).")
        circuitProbes = try registry.makeCounterFamily(
            name: "pushline_apns_circuit_probes_total", labelNames: ["pool"],
            help: "Probe requests sent while the pool's circuit was open.")
    }

    /// Exposes `pool`'s gauges from the start, at 0 (`pushline_apns_circuit_open` included, which
    /// would otherwise appear only at the first transition), so dashboards and alert rules see a
    /// closed circuit as 0 rather than as no series.
    public func registerPool(named pool: String) {
        for family in [connections, inFlightStreams, freeStreamCapacity, circuitOpen] { _ = family.metric(labelValues: [pool]) }
    }

    public func recordResult(pool: String, outcome: DeliveryResult.Outcome, status: Int?, reason: String?,
                             latencyMilliseconds: Double) {
        let statusLabel = status.map(Self.statusLabel) ?? Self.absentLabelValue
        // Per delivery, on the sender's loop: the labels inline, so a result like the one before
        // (nearly all are) allocates nothing.
        results.metric([pool, outcome.rawValue, statusLabel, reason ?? Self.absentLabelValue] as InlineArray).increment()
        latency.metric([pool, outcome.rawValue] as InlineArray).recordMilliseconds(latencyMilliseconds)
    }

    /// The `status` label of an HTTP status, in decimal; 200, nearly every result, as a literal
    /// (counting a result then makes no text from a number, once per delivery).
    static func statusLabel(_ status: Int) -> String {
        status == 200 ? "200" : String(status)
    }

    public func recordRetry(pool: String, cause: String) {
        retries.metric(labelValues: [pool, cause]).increment()
    }

    public func recordTokenRefresh(pool: String) {
        tokenRefreshes.metric(labelValues: [pool]).increment()
    }

    public func recordPoolState(pool: String, openConnections: Int, inFlightStreams: Int, freeStreamCapacity: Int) {
        connections.metric(labelValues: [pool]).record(openConnections)
        self.inFlightStreams.metric(labelValues: [pool]).record(inFlightStreams)
        self.freeStreamCapacity.metric(labelValues: [pool]).record(freeStreamCapacity)
    }

    public func recordCircuit(pool: String, state: PoolCircuit.State, cause: String) {
        circuitOpen.metric(labelValues: [pool]).record(state == .open ? 1 : 0)
        circuitTransitions.metric(labelValues: [pool, state.rawValue]).increment()
        let metadata: Logger.Metadata = ["pool": .string(pool), "cause": .string(cause)]
        if state == .open {
            logger?.warning("apns circuit opened", metadata: metadata)
        } else {
            logger?.info("apns circuit closed", metadata: metadata)
        }
    }

    public func recordProbe(pool: String) {
        circuitProbes.metric(labelValues: [pool]).increment()
    }
}
