import Synchronization

/// Makes metrics and writes them out in the Prometheus text format: swift-metrics' factory and
/// swift-prometheus' `PrometheusCollectorRegistry` in one.
///
/// A name and a set of label values make one metric: asking again returns the same instance.
/// Names are checked against Pushline's naming rules (`pushline_` prefix, snake_case, `_total`
/// on counters only, base units); a broken rule or a registration that contradicts an earlier one
/// (another type, other label names, other buckets) throws ``MetricsRegistryError``.
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[String: any ExposableFamily]>([:])

    /// An empty registry.
    public init() {}

    // MARK: Families: validated once, members looked up by label values

    /// The counter family `name` with labels `labelNames`.
    public func makeCounterFamily(name: String, labelNames: [String] = [], help: String = "")
        throws(MetricsRegistryError) -> MetricFamily<Counter> {
        try family(name: name, labelNames: labelNames, help: help, buckets: []) { Counter(label: name, dimensions: $0) }
    }

    /// The gauge family `name` with labels `labelNames`.
    public func makeGaugeFamily(name: String, labelNames: [String] = [], help: String = "")
        throws(MetricsRegistryError) -> MetricFamily<Gauge> {
        try family(name: name, labelNames: labelNames, help: help, buckets: []) { Gauge(label: name, dimensions: $0) }
    }

    /// The histogram family `name` with labels `labelNames` and bucket upper bounds `buckets`.
    public func makeHistogramFamily(name: String, labelNames: [String] = [], buckets: [Double] = Histogram.defaultBuckets,
                                    help: String = "") throws(MetricsRegistryError) -> MetricFamily<Histogram> {
        try family(name: name, labelNames: labelNames, help: help, buckets: buckets) {
            Histogram(label: name, dimensions: $0, buckets: buckets)
        }
    }

    /// The timer family `name` (ending in `_seconds`) with labels `labelNames` and bucket upper
    /// bounds `buckets` in seconds.
    public func makeTimerFamily(name: String, labelNames: [String] = [], buckets: [Double] = Histogram.defaultBuckets,
                                help: String = "") throws(MetricsRegistryError) -> MetricFamily<Timer> {
        try family(name: name, labelNames: labelNames, help: help, buckets: buckets) {
            Timer(label: name, dimensions: $0, buckets: buckets)
        }
    }

    // MARK: Single metrics (swift-metrics' `label` and `dimensions`)

    /// The counter `label` with these dimensions (Prometheus labels).
    public func makeCounter(label: String, dimensions: [(String, String)] = [], help: String = "")
        throws(MetricsRegistryError) -> Counter {
        try makeCounterFamily(name: label, labelNames: dimensions.map(\.0), help: help).metric(labelValues: dimensions.map(\.1))
    }

    /// The gauge `label` with these dimensions (Prometheus labels).
    public func makeGauge(label: String, dimensions: [(String, String)] = [], help: String = "")
        throws(MetricsRegistryError) -> Gauge {
        try makeGaugeFamily(name: label, labelNames: dimensions.map(\.0), help: help).metric(labelValues: dimensions.map(\.1))
    }

    /// The histogram `label` with these dimensions (Prometheus labels) and bucket upper bounds.
    public func makeHistogram(label: String, dimensions: [(String, String)] = [], buckets: [Double] = Histogram.defaultBuckets,
                              help: String = "") throws(MetricsRegistryError) -> Histogram {
        try makeHistogramFamily(name: label, labelNames: dimensions.map(\.0), buckets: buckets, help: help)
            .metric(labelValues: dimensions.map(\.1))
    }

    /// The timer `label` (ending in `_seconds`) with these dimensions (Prometheus labels) and bucket
    /// upper bounds in seconds.
    public func makeTimer(label: String, dimensions: [(String, String)] = [], buckets: [Double] = Histogram.defaultBuckets,
                          help: String = "") throws(MetricsRegistryError) -> Timer {
        try makeTimerFamily(name: label, labelNames: dimensions.map(\.0), buckets: buckets, help: help)
            .metric(labelValues: dimensions.map(\.1))
    }

    // MARK: Exposition

    /// The `content-type` of ``emit(into:)``'s output: the Prometheus text format 0.0.4.
    public static let expositionContentType = PrometheusText.contentType

    /// Appends every metric in the Prometheus text format 0.0.4, families ordered by name and
    /// members by label values. Families without members are left out.
    public func emit(into buffer: inout [UInt8]) {
        let sortedFamilies = families.withLock { families in families.sorted { $0.key < $1.key }.map(\.value) }
        for family in sortedFamilies {
            family.emit(into: &buffer)
        }
    }

    private func family<Metric: PrometheusSampled>(
        name: String, labelNames: [String], help: String, buckets: [Double],
        makeMember: @escaping @Sendable ([(String, String)]) -> Metric
    ) throws(MetricsRegistryError) -> MetricFamily<Metric> {
        let kind = Metric.kind
        if let violation = MetricNamingRules.violation(ofName: name, kind: kind) {
            throw MetricsRegistryError(code: .invalidName, name: name, detail: violation)
        }
        if let violation = MetricNamingRules.violation(ofLabelNames: labelNames, kind: kind) {
            throw MetricsRegistryError(code: .invalidLabelName, name: name, detail: violation)
        }
        if kind.hasBuckets, buckets.isEmpty || !buckets.allSatisfy(\.isFinite) || !zip(buckets, buckets.dropFirst()).allSatisfy(<) {
            throw MetricsRegistryError(code: .invalidBuckets, name: name,
                                       detail: "buckets \(buckets) must be finite, ascending, at least one")
        }
        return try families.withLock { families throws(MetricsRegistryError) in
            guard let existing = families[name] else {
                let created = MetricFamily(name: name, labelNames: labelNames, help: help, buckets: buckets, makeMember: makeMember)
                families[name] = created
                return created
            }
            guard let family = existing as? MetricFamily<Metric> else {
                throw MetricsRegistryError(code: .conflictingRegistration, name: name,
                                           detail: "already registered as a \(existing.kind.rawValue), not a \(kind.rawValue)")
            }
            guard family.labelNames == labelNames else {
                throw MetricsRegistryError(code: .conflictingRegistration, name: name,
                                           detail: "already registered with labels \(family.labelNames), not \(labelNames)")
            }
            guard family.buckets == buckets else {
                throw MetricsRegistryError(code: .conflictingRegistration, name: name,
                                           detail: "already registered with buckets \(family.buckets), not \(buckets)")
            }
            return family
        }
    }
}
