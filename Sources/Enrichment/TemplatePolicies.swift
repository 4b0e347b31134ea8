/// A template's `policies:` (docs/policies.md): the policy fields every intent of the template gets
/// unless the intent gives its own. The rules themselves (caps, budgets, quiet hours, lanes,
/// throttles) are the pipeline's `policies:`.
struct TemplatePolicies: Sendable, Equatable {
    /// `category`: the policy category (the intent's `policy_category`), not `aps.category`.
    var category: String?
    /// `lane`.
    var lane: String?
    /// `ttl`, seconds: how long after the intent's `created_at` (or, without it, after it reaches the
    /// policy stage) a delivery may still be sent, when the intent has no `expires_at`.
    var timeToLiveSeconds: Int64?
    /// `respect_quiet_hours`.
    var respectQuietHours: Bool?

    /// Reads a template's `policies` mapping, if it has one.
    static func read(_ fields: inout YAMLMapping) throws(CatalogLoadError) -> TemplatePolicies {
        guard var section = try fields.mapping("policies") else { return TemplatePolicies() }
        var policies = TemplatePolicies()
        policies.category = try section.string("category")
        policies.lane = try section.string("lane")
        if let ttl = try section.string("ttl") {
            guard let seconds = Int64(ttl), seconds > 0 else {
                throw section.error("ttl", section.node("ttl"), "must be a whole number of seconds above 0, got \"\(ttl)\"")
            }
            policies.timeToLiveSeconds = seconds
        }
        policies.respectQuietHours = try section.bool("respect_quiet_hours")
        try section.rejectUnknownKeys()
        return policies
    }
}
