import Synchronization

/// A number that goes up and down: open connections, streams in flight. Shaped like
/// swift-metrics' `Gauge` (`record`) and swift-prometheus' `Gauge` (`set`, `increment`,
/// `decrement`); made by ``MetricsRegistry/makeGauge(label:dimensions:help:)`` or a ``MetricFamily``.
public final class Gauge: Sendable {
    /// The metric name, for example `pushline_apns_connections`.
    public let label: String
    /// The Prometheus labels, in the order of the family's label names.
    public let dimensions: [(String, String)]
    private let current = Atomic<Double>(0)

    init(label: String, dimensions: [(String, String)]) {
        self.label = label
        self.dimensions = dimensions
    }

    /// Replaces the value (swift-metrics' name).
    public func record<Value: BinaryFloatingPoint>(_ value: Value) {
        set(to: Double(value))
    }

    /// Replaces the value (swift-metrics' name), for integer readings such as a connection count.
    public func record<Value: BinaryInteger>(_ value: Value) {
        set(to: Double(value))
    }

    /// Replaces the value (swift-prometheus' name).
    public func set(to value: Double) {
        current.store(value, ordering: .relaxed)
    }

    /// Adds `amount` atomically.
    public func increment(by amount: Double = 1) {
        current.add(amount)
    }

    /// Subtracts `amount` atomically.
    public func decrement(by amount: Double = 1) {
        increment(by: -amount)
    }

    /// The current value.
    public var value: Double { current.load(ordering: .relaxed) }
}

extension Gauge: PrometheusSampled {
    static let kind = MetricKind.gauge

    func appendSamples(to buffer: inout [UInt8]) {
        PrometheusText.appendSample(name: label, dimensions: dimensions, value: value, to: &buffer)
    }
}
