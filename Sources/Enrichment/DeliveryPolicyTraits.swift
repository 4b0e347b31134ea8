import APNsCore

/// What the delivery policies (docs/policies.md) need to know of one delivery, fixed at planning:
/// the intent's policy fields over its template's `policies:`, and what the seeds' budgets and the
/// interruption-level metric look at. Shared by every device of an intent.
public struct DeliveryPolicyTraits: Sendable, Equatable {
    /// The policy category (`policy_category`, else the template's `policies.category`).
    public let category: String?
    /// The priority lane (`lane`, else the template's).
    public let lane: String?
    /// `expires_at`, UNIX seconds.
    public let expiresAt: Int64?
    /// The template's `policies.ttl`, seconds; applies when ``expiresAt`` is nil.
    public let timeToLiveSeconds: Int64?
    /// Whether quiet hours apply (`respect_quiet_hours`, else the template's; true when neither says).
    public let respectQuietHours: Bool
    /// `campaign`.
    public let campaign: String?
    /// The Live Activity event of a `liveactivity` push.
    public let liveActivityEvent: LiveActivityEvent?
    /// `aps.interruption-level` of an alert (the intent's, else the template's); nil when neither sets it.
    public let interruptionLevel: InterruptionLevel?
}

// The initializers live in an extension, so the memberwise one stays; the properties are `let`s
// without initial values: in a struct this large, an explicit initializer that sets a property
// holding a reference which already had a value (a `var` optional's nil) ends by copying the
// whole struct, a retain and a release for each string (docs/BENCHMARKS.md).
extension DeliveryPolicyTraits {
    /// No policy fields.
    public init() {
        self.init(category: nil, lane: nil, expiresAt: nil, timeToLiveSeconds: nil, respectQuietHours: true, campaign: nil,
                  liveActivityEvent: nil, interruptionLevel: nil)
    }

    /// The traits of `intent`'s deliveries, its template (if any) filling what the intent leaves out.
    init(_ intent: borrowing Intent, template: Template?) {
        // The template's policies read where they lie: a `let` of them copied their strings.
        self.init(category: intent.policy.category ?? template?.policies.category, lane: intent.policy.lane ?? template?.policies.lane,
                  expiresAt: intent.policy.expiresAt, timeToLiveSeconds: template?.policies.timeToLiveSeconds,
                  respectQuietHours: intent.policy.respectQuietHours ?? template?.policies.respectQuietHours ?? true,
                  campaign: intent.policy.campaign, liveActivityEvent: intent.liveActivity?.event,
                  interruptionLevel: intent.overrides.interruptionLevel ?? template?.interruptionLevel)
    }
}
