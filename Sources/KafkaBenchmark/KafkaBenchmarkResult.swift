/// Throughput of one workload through the wrapper and through the plain C loop, per round.
public struct KafkaBenchmarkResult: Sendable {
    /// `produce` or `consume`.
    public let workload: String
    /// Messages per second of the C loop, one per round.
    public internal(set) var cLoop: [Double] = []
    /// Messages per second through the wrapper, one per round.
    public internal(set) var wrapper: [Double] = []

    /// The best round of each, compared: noise on a shared machine only ever slows a round down.
    public var ratio: Double { (wrapper.max() ?? 0) / (cLoop.max() ?? 1) }
}
