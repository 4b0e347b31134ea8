/// How long Redis remembers deliveries. The worker's `dedupe` section sets the defaults; a
/// pipeline's `dedupe` section overrides them for that pipeline.
public struct DedupeConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// How long an idempotency claim stays `pending` before another worker may take it over.
    /// (The same as the Pipeline module's `IdempotencyStore.Configuration` default.)
    public var pendingTTL = Duration.seconds(60)
    /// How long a `sent` or `failed` claim keeps the same intent from reaching the same device again.
    /// (The same as the Pipeline module's `IdempotencyStore.Configuration` default.)
    public var sentTTL = Duration.seconds(7 * 86_400)
    /// The collapse window of templates and intents that name none.
    public var collapseWindow = Duration.seconds(3_600)

    public init() {}

    public var description: String {
        "pending \(DurationText.format(pendingTTL)), sent \(DurationText.format(sentTTL)), "
            + "collapse window \(DurationText.format(collapseWindow))"
    }

    /// Reads a `dedupe` section over these values.
    mutating func read(_ section: inout ConfigurationSection) {
        let range = Duration.seconds(1)...Duration.seconds(30 * 86_400)
        if let ttl = section.value("pending_ttl", .duration(range)) { pendingTTL = ttl }
        if let ttl = section.value("sent_ttl", .duration(range)) { sentTTL = ttl }
        if let window = section.value("collapse_window", .duration(range)) { collapseWindow = window }
        section.finish()
    }
}
