/// The token feed (`tokens` in `Config/pushline.yaml`): a consumer of the token records' topic, in a
/// group of its own, that keeps the token registry in step; `pushline run` starts it when enabled.
/// The records and the feed: `docs/tokens.md`.
public struct TokensConfiguration: Sendable, CustomStringConvertible {
    /// Whether `pushline run` starts the feed. Off unless the file or `PUSHLINE_TOKENS_ENABLED` says so,
    /// so a setup without the topic does not wait on it.
    public var enabled = false
    public var topic = "pushline.tokens"
    /// The feed's consumer group: its own, so it reads every record whatever the pipelines do.
    public var group = "pushline-tokens"
    /// Where records that cannot be decoded go, with their reason.
    public var dlq = "pushline.dlq"
    /// The most records applied in one Redis round trip.
    public var batchSize = 500

    public init() {}

    public var description: String {
        "\(enabled ? "feed" : "feed off:") \(topic) (group \(group)), batches of \(batchSize), dead letters to \(dlq)"
    }

    /// Reads the `tokens` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        if let enabled = section.value("enabled", .boolean) { self.enabled = enabled }
        if let topic = section.value("topic", .topic) { self.topic = topic }
        if let group = section.value("group", .text) { self.group = group }
        if let dlq = section.value("dlq", .topic) { self.dlq = dlq }
        if let size = section.value("batch_size", .integer(1...10_000)) { batchSize = size }
        section.finish()
    }
}
