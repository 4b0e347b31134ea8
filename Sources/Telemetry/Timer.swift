/// Durations counted into buckets, exposed in seconds: APNs latency, end-to-end latency. Shaped
/// like swift-metrics' `Timer` (`recordNanoseconds`, …) and swift-prometheus' `DurationHistogram`;
/// made by ``MetricsRegistry/makeTimer(label:dimensions:buckets:help:)`` or a ``MetricFamily``.
/// Exposed as a Prometheus `histogram` whose name ends in `_seconds`.
public final class Timer: Sendable {
    /// The metric name, for example `pushline_apns_latency_seconds`.
    public let label: String
    /// The Prometheus labels, in the order of the family's label names.
    public let dimensions: [(String, String)]
    private let seconds: Histogram

    /// `buckets` (in seconds) were validated by the registry: ascending, finite.
    init(label: String, dimensions: [(String, String)], buckets: [Double]) {
        self.label = label
        self.dimensions = dimensions
        seconds = Histogram(label: label, dimensions: dimensions, buckets: buckets)
    }

    /// Records a duration in nanoseconds.
    public func recordNanoseconds(_ duration: Int64) {
        seconds.observe(Double(duration) / 1e9)
    }

    /// Records a duration in milliseconds.
    public func recordMilliseconds(_ duration: Double) {
        seconds.observe(duration / 1e3)
    }

    /// Records a duration in seconds.
    public func recordSeconds(_ duration: Double) {
        seconds.observe(duration)
    }

    /// How many durations were recorded.
    public var count: Int64 { seconds.count }

    /// The sum of every duration, in seconds.
    public var sumSeconds: Double { seconds.sum }
}

extension Timer: PrometheusSampled {
    static let kind = MetricKind.timer

    func appendSamples(to buffer: inout [UInt8]) {
        seconds.appendSamples(to: &buffer)
    }
}
