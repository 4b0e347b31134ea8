/// One throttle (an item of `policies.throttles`): a rate in deliveries per second for an app, a
/// campaign (the intent's `campaign`) or a pool, shared by every worker of the pipeline's group
/// through a token bucket in Redis. Over the rate, deliveries wait; none fails (docs/policies.md).
public struct ThrottleConfiguration: Sendable, Equatable {
    /// What the throttle counts.
    public enum Scope: String, Sendable, CaseIterable {
        case app
        case campaign
        case pool
    }

    public var scope: Scope
    /// The app id, campaign or pool name it counts.
    public var value: String
    /// Deliveries per second, across the group.
    public var rate: Int
    /// Deliveries that may go at once after a quiet spell: the bucket's size (`rate` unless set).
    public var burst: Int

    public init(scope: Scope, value: String, rate: Int, burst: Int? = nil) {
        self.scope = scope
        self.value = value
        self.rate = rate
        self.burst = burst ?? rate
    }

    /// `<scope>:<value>`: the bucket's name, its Redis key `pushline:throttle:{<bucket>}`, its metric label.
    public var bucket: String { "\(scope.rawValue):\(value)" }

    /// The worker asks a bucket for tokens at most this many times a second (its
    /// `ThrottleGate.minimumInterval`, 10 ms apart): a bucket smaller than `rate` / this overflows
    /// between asks, and the rate would be lower than set.
    public static let asksPerSecond = 100

    /// Reads one item: exactly one of `app`, `campaign`, `pool` (one of `poolNames`), with `rate` and
    /// optionally `burst` (at least `rate` / ``asksPerSecond``).
    static func read(_ section: inout ConfigurationSection, poolNames: Set<String>) -> ThrottleConfiguration? {
        defer { section.finish() }
        let scoped = Scope.allCases.compactMap { scope in section.value(scope.rawValue, .text).map { (scope, $0) } }
        let rate = section.required("rate", .integer(1...1_000_000))
        let burst = section.value("burst", .integer(1...10_000_000))
        guard scoped.count <= 1 else {
            let second = scoped[1].0.rawValue
            section.report(.invalidValue, second, at: section.origin(second),
                           "a throttle names exactly one of app, campaign or pool (found \(scoped.map(\.0.rawValue).joined(separator: ", ")))")
            return nil
        }
        guard let (scope, value) = scoped.first else {
            section.report(.missingKey, "app", at: section.origin("rate"), "a throttle names one of app, campaign or pool")
            return nil
        }
        if scope == .pool && !poolNames.contains(value) {
            let known = poolNames.isEmpty ? "none are defined" : "defined: \(poolNames.sorted().joined(separator: ", "))"
            section.report(.unknownReference, "pool", at: section.origin("pool"), "\"\(value)\" is not a pool of apns.pools (\(known))")
            return nil
        }
        guard let rate else { return nil }
        let leastBurst = (rate + Self.asksPerSecond - 1) / Self.asksPerSecond
        if let burst, burst < leastBurst {
            section.report(.invalidValue, "burst", at: section.origin("burst"),
                           "\(burst) is under rate / \(Self.asksPerSecond) (\(leastBurst)): the bucket would overflow between the worker's asks "
                           + "(every 10 ms) and deliveries would go slower than \(rate)/s; at least \(leastBurst)")
            return nil
        }
        return ThrottleConfiguration(scope: scope, value: value, rate: rate, burst: burst)
    }
}
