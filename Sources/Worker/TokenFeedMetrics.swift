import Pipeline
import Telemetry

/// The token feed's metrics (names and labels in `docs/telemetry.md`): what became of each record,
/// and whether Redis answers the feed.
struct TokenFeedMetrics: Sendable {
    /// The `result` label of a record that could not be decoded.
    static let deadLetterResult = "dead_letter"

    private let records: MetricFamily<Counter>
    let redisAvailable: Gauge

    init(registry: MetricsRegistry) throws(MetricsRegistryError) {
        records = try registry.makeCounterFamily(
            name: "pushline_token_records_total", labelNames: ["result"],
            help: "pushline.tokens records by result: applied, superseded, not_registered, dead_letter.")
        redisAvailable = try registry.makeGauge(label: "pushline_token_feed_redis_available",
                                                help: "1 while Redis answers the token feed, else 0.")
        redisAvailable.set(to: 1)
    }

    /// Counts a batch: the effect of each applied record and the dead letters.
    func recorded(_ effects: [TokenRegistry.RegistrationEffect], deadLetters: Int) {
        var counts: [String: Int] = [:]
        for effect in effects { counts[Self.result(effect), default: 0] += 1 }
        if deadLetters > 0 { counts[Self.deadLetterResult] = deadLetters }
        for (result, count) in counts { records.metric(labelValues: [result]).increment(by: count) }
    }

    private static func result(_ effect: TokenRegistry.RegistrationEffect) -> String {
        switch effect {
        case .applied: "applied"
        case .superseded: "superseded"
        case .notRegistered: "not_registered"
        }
    }
}
