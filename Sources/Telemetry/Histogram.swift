import Synchronization

/// Observations counted into buckets: batch sizes, payload bytes. Shaped like swift-metrics'
/// `Recorder` and swift-prometheus' `ValueHistogram`; made by
/// ``MetricsRegistry/makeHistogram(label:dimensions:buckets:help:)`` or a ``MetricFamily``.
/// Exposed as a Prometheus `histogram`: cumulative `_bucket{le=…}` samples ending in `+Inf`,
/// `_sum` and `_count`.
///
/// Recording is lock-free: one atomic add on the observation's bucket and one on the sum.
/// `_count` is computed from the buckets when exposed, so it always equals the `+Inf` bucket.
public final class Histogram: @unchecked Sendable {
    // @unchecked: `bucketCounts` is written only through its Atomic elements between init and deinit.

    /// Prometheus' default buckets, in seconds: 5 ms to 10 s.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// The metric name, for example `pushline_batch_size`.
    public let label: String
    /// The Prometheus labels, in the order of the family's label names.
    public let dimensions: [(String, String)]
    /// The buckets' inclusive upper bounds, ascending and finite; `+Inf` follows implicitly.
    public let buckets: [Double]
    /// Observations per bucket (not cumulative); the last slot is the `+Inf` bucket.
    private let bucketCounts: UnsafeMutablePointer<Atomic<Int64>>
    private let total = Atomic<Double>(0)

    /// `buckets` were validated by the registry: ascending, finite.
    init(label: String, dimensions: [(String, String)], buckets: [Double]) {
        self.label = label
        self.dimensions = dimensions
        self.buckets = buckets
        bucketCounts = .allocate(capacity: buckets.count + 1)
        for slot in 0...buckets.count {
            (bucketCounts + slot).initialize(to: Atomic(0))
        }
    }

    deinit {
        bucketCounts.deinitialize(count: buckets.count + 1)
        bucketCounts.deallocate()
    }

    /// Counts one observation. Inlinable, so that the conversion is specialized in the caller
    /// (unspecialized, converting a `Double` took a dynamic cast: once per delivery, for the
    /// end-to-end latency).
    @inlinable
    public func record<Value: BinaryFloatingPoint>(_ value: Value) {
        observe(Double(value))
    }

    /// Counts one observation, for integer readings such as a batch size.
    @inlinable
    public func record<Value: BinaryInteger>(_ value: Value) {
        observe(Double(value))
    }

    /// How many observations were recorded.
    public var count: Int64 { bucketCountsSnapshot().reduce(0, +) }

    /// The sum of every observation.
    public var sum: Double { total.load(ordering: .relaxed) }

    @usableFromInline
    func observe(_ value: Double) {
        bucketCounts[bucketIndex(of: value)].wrappingAdd(1, ordering: .relaxed)
        total.add(value)
    }

    /// The first bucket whose upper bound is at least `value` (binary search); NaN and values above
    /// the last bound land in `+Inf`.
    private func bucketIndex(of value: Double) -> Int {
        var low = 0
        var high = buckets.count
        while low < high {
            let middle = (low + high) / 2
            if value <= buckets[middle] { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private func bucketCountsSnapshot() -> [Int64] {
        (0...buckets.count).map { bucketCounts[$0].load(ordering: .relaxed) }
    }
}

extension Histogram: PrometheusSampled {
    static let kind = MetricKind.histogram

    func appendSamples(to buffer: inout [UInt8]) {
        var cumulative: Int64 = 0
        for (slot, observations) in bucketCountsSnapshot().enumerated() {
            cumulative += observations
            let bound = slot < buckets.count ? PrometheusText.format(buckets[slot]) : "+Inf"
            PrometheusText.appendSample(name: label + "_bucket", dimensions: dimensions + [("le", bound)],
                                        value: cumulative, to: &buffer)
        }
        PrometheusText.appendSample(name: label + "_sum", dimensions: dimensions, value: sum, to: &buffer)
        PrometheusText.appendSample(name: label + "_count", dimensions: dimensions, value: cumulative, to: &buffer)
    }
}
