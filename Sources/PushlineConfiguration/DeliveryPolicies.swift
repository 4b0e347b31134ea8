/// A pipeline's delivery policies, its `policies:` section (docs/policies.md): what decides, after
/// planning and before sending, whether and how each delivery goes. The defaults live here, and
/// only here.
///
/// Where each part of issue 17 plugs in: `ttl`, `frequency_caps`, `background_budget` and
/// `live_activity_budget` are read here, and `lanes` and `throttles` (``LanesConfiguration``,
/// ``ThrottleConfiguration``), and `quiet_hours` (``QuietHoursConfiguration``).
public struct DeliveryPolicies: Sendable, Equatable {
    /// At most `limit` deliveries within any rolling `window`.
    public struct RollingLimit: Sendable, Equatable {
        public var limit: Int
        public var window: Duration

        public init(limit: Int, window: Duration) {
            self.limit = limit
            self.window = window
        }
    }

    /// `ttl`: the time to live of deliveries whose intent has no `expires_at` and whose template has
    /// no `policies.ttl`.
    public struct TimeToLive: Sendable, Equatable {
        /// `default`; nil (the default): such deliveries have no deadline of their own.
        public var fallback: Duration?

        public init() {}
    }

    /// `frequency_caps`: how many deliveries of a category one user (or, without a user, one
    /// device) may get within rolling windows.
    public struct FrequencyCaps: Sendable, Equatable {
        /// One rule of `rules`: the limit of one category, or (`category` nil) of every category that
        /// has no rule of its own and is not exempt.
        public struct Rule: Sendable, Equatable {
            public var category: String?
            public var limit: RollingLimit

            public init(category: String?, limit: RollingLimit) {
                self.category = category
                self.limit = limit
            }
        }

        public var rules: [Rule] = []
        /// `exempt`: categories no rule without a category applies to.
        public var exempt: Set<String> = ["transactional"]

        public init() {}

        /// Every category's limits resolved once, each made a `Limit` by `convert`: a delivery's
        /// are then a lookup, with no array made per delivery.
        public func resolved<Limit: Sendable>(_ convert: (RollingLimit) -> Limit) -> Resolved<Limit> {
            var named: [String: [Limit]] = [:]
            for rule in rules {
                guard let category = rule.category else { continue }
                named[category, default: []].append(convert(rule.limit))
            }
            return Resolved(named: named, others: rules.filter { $0.category == nil }.map { convert($0.limit) }, exempt: exempt)
        }

        /// The caps resolved for every category (``resolved(_:)``): the limits of each category a
        /// rule names, and those of every other category (the rules without one) unless exempt.
        public struct Resolved<Limit: Sendable>: Sendable {
            let named: [String: [Limit]]
            let others: [Limit]
            let exempt: Set<String>

            /// The limits a delivery of `category` is held to; none without a category.
            public func limits(for category: String?) -> [Limit] {
                guard let category else { return [] }
                if let own = named[category] { return own }
                return exempt.contains(category) ? [] : others
            }
        }
    }

    /// A budget counted per device or per Live Activity within a rolling window.
    public struct Budget: Sendable, Equatable {
        public var enabled = true
        public var limit: RollingLimit

        public init(limit: RollingLimit) {
            self.limit = limit
        }
    }

    public var timeToLive = TimeToLive()
    public var frequencyCaps = FrequencyCaps()
    /// `background_budget`: background pushes per device (Apple: "two or three per hour").
    public var backgroundBudget = Budget(limit: RollingLimit(limit: 3, window: .seconds(3_600)))
    /// `live_activity_budget`: priority-10 updates per Live Activity; beyond it they go at priority 5.
    public var liveActivityBudget = Budget(limit: RollingLimit(limit: 10, window: .seconds(60)))
    /// `lanes`: priority lanes; none by default (one first-in first-out queue).
    public var lanes = LanesConfiguration()
    /// `throttles`, in the order written: a delivery waits for the first that matches it.
    public var throttles: [ThrottleConfiguration] = []
    /// `quiet_hours`: deliveries inside the window are deferred to its end; nil (the default): none.
    public var quietHours: QuietHoursConfiguration?

    public init() {}

    /// Reads a pipeline's `policies` section over the defaults; a throttle's `pool` must be one of
    /// `poolNames` (`apns.pools`).
    mutating func read(_ section: inout ConfigurationSection, poolNames: Set<String>) {
        defer { section.finish() }
        var ttl = section.section("ttl")
        timeToLive.fallback = ttl.value("default", .duration(Self.windowRange))
        ttl.finish()
        var caps = section.section("frequency_caps")
        frequencyCaps.read(&caps)
        var background = section.section("background_budget")
        backgroundBudget.read(&background)
        var liveActivity = section.section("live_activity_budget")
        liveActivityBudget.read(&liveActivity)
        var lanesSection = section.section("lanes")
        lanes = LanesConfiguration.read(&lanesSection)
        throttles = section.sequence("throttles").compactMap { item in
            var item = item
            return ThrottleConfiguration.read(&item, poolNames: poolNames)
        }
        // Two throttles of one bucket would share its Redis key with different rates.
        for (index, throttle) in throttles.enumerated() where throttles[..<index].contains(where: { $0.bucket == throttle.bucket }) {
            section.report(.duplicate, "throttles", at: section.origin("throttles"), "\(throttle.bucket) has two throttles")
        }
        if section.isSet("quiet_hours") {
            var quiet = section.section("quiet_hours")
            quietHours = QuietHoursConfiguration.read(&quiet)
        }
    }

    /// Windows from a second to 30 days.
    static let windowRange = Duration.seconds(1)...Duration.seconds(30 * 86_400)

}

extension DeliveryPolicies.RollingLimit {
    /// `limit` and `window` of a mapping; nil when either is missing or wrong (which is reported).
    static func read(_ section: inout ConfigurationSection) -> DeliveryPolicies.RollingLimit? {
        let limit = section.required("limit", .integer(1...1_000_000))
        let window = section.required("window", .duration(DeliveryPolicies.windowRange))
        guard let limit, let window else { return nil }
        return DeliveryPolicies.RollingLimit(limit: limit, window: window)
    }
}

extension DeliveryPolicies.FrequencyCaps {
    mutating func read(_ section: inout ConfigurationSection) {
        defer { section.finish() }
        if let exempt = section.list("exempt", .name) { self.exempt = Set(exempt) }
        for var entry in section.sequence("rules") {
            let category = entry.value("category", .name)
            if let category, exempt.contains(category) {
                entry.report(.invalidValue, "category", at: entry.origin("category"), "\"\(category)\" is exempt from frequency caps")
            }
            if let limit = DeliveryPolicies.RollingLimit.read(&entry) { rules.append(Rule(category: category, limit: limit)) }
            entry.finish()
        }
    }
}

extension DeliveryPolicies.Budget {
    mutating func read(_ section: inout ConfigurationSection) {
        defer { section.finish() }
        if let enabled = section.value("enabled", .boolean) { self.enabled = enabled }
        if let limit = section.value("limit", .integer(1...1_000_000)) { self.limit.limit = limit }
        if let window = section.value("window", .duration(DeliveryPolicies.windowRange)) { self.limit.window = window }
    }
}
