import APNsClient

/// How long Redis remembers deliveries, and what becomes of a delivery APNs may have taken. The worker's `dedupe` section sets the defaults; a
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
    /// What a delivery that APNs may have taken without an answer (a crash, a lost stream) becomes:
    /// sent again (`resend`) or given the outcome `unknown` (`skip`).
    public var onUncertain = UncertainDeliveryPolicy.resend
    /// How long a worker's liveness key outlives its last renewal: a dead worker's `pending` claims
    /// are taken over (or, under `skip`, settled `unknown`) this long after it died.
    public var ownerTTL = Duration.seconds(3)

    public init() {}

    public var description: String {
        "pending \(DurationText.format(pendingTTL)), sent \(DurationText.format(sentTTL)), "
            + "collapse window \(DurationText.format(collapseWindow)), on uncertain \(onUncertain.rawValue), "
            + "owner \(DurationText.format(ownerTTL))"
    }

    /// Reads a `dedupe` section over these values.
    mutating func read(_ section: inout ConfigurationSection) {
        let range = Duration.seconds(1)...Duration.seconds(30 * 86_400)
        if let ttl = section.value("pending_ttl", .duration(range)) { pendingTTL = ttl }
        if let ttl = section.value("sent_ttl", .duration(range)) { sentTTL = ttl }
        if let window = section.value("collapse_window", .duration(range)) { collapseWindow = window }
        if let policy = section.value("on_uncertain", ConfigurationValueType<UncertainDeliveryPolicy>.choice()) { onUncertain = policy }
        if let ttl = section.value("owner_ttl", .duration(Duration.seconds(1)...Duration.seconds(600))) { ownerTTL = ttl }
        section.finish()
    }
}
