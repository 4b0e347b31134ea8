/// Percentiles of a set of latencies, milliseconds, by the nearest-rank method (the p-th percentile
/// is the smallest value that at least p % of the values do not exceed).
public struct LatencySummary: Sendable, Equatable {
    public let count: Int
    public let p50: Double
    public let p90: Double
    public let p99: Double
    public let max: Double

    /// Nil when there are no values.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double {
            sorted[Swift.max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
        }
        count = sorted.count
        p50 = percentile(50)
        p90 = percentile(90)
        p99 = percentile(99)
        max = sorted[sorted.count - 1]
    }
}
