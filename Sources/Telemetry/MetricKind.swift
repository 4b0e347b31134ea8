/// What a metric is, for naming rules and the `# TYPE` line.
enum MetricKind: String, Sendable {
    case counter, gauge, histogram, timer

    /// The `# TYPE` word: a timer is a histogram of seconds.
    var prometheusType: String { self == .timer ? "histogram" : rawValue }

    /// Histograms and timers have buckets (and reserve the `le` label).
    var hasBuckets: Bool { self == .histogram || self == .timer }
}
