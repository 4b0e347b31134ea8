import Synchronization

/// A number that only goes up: requests sent, results by outcome. Shaped like swift-metrics'
/// `Counter`; made by ``MetricsRegistry/makeCounter(label:dimensions:help:)`` or a
/// ``MetricFamily``. Exposed as a Prometheus `counter` whose name ends in `_total`.
public final class Counter: Sendable {
    /// The metric name, for example `pushline_apns_retries_total`.
    public let label: String
    /// The Prometheus labels, in the order of the family's label names.
    public let dimensions: [(String, String)]
    private let total = Atomic<Int64>(0)

    init(label: String, dimensions: [(String, String)]) {
        self.label = label
        self.dimensions = dimensions
    }

    /// Adds 1.
    public func increment() {
        total.wrappingAdd(1, ordering: .relaxed)
    }

    /// Adds `amount`. A counter never goes down: a negative amount is a programming error.
    public func increment<Amount: BinaryInteger>(by amount: Amount) {
        precondition(amount >= 0, "counter \(label) incremented by a negative amount")
        total.wrappingAdd(Int64(clamping: amount), ordering: .relaxed)
    }

    /// The current total.
    public var value: Int64 { total.load(ordering: .relaxed) }
}

extension Counter: PrometheusSampled {
    static let kind = MetricKind.counter

    func appendSamples(to buffer: inout [UInt8]) {
        PrometheusText.appendSample(name: label, dimensions: dimensions, value: value, to: &buffer)
    }
}
