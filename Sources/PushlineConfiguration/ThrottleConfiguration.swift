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

    /// Reads one item: exactly one of `app`, `campaign`, `pool`, with `rate` and optionally `burst`.
    static func read(_ section: inout ConfigurationSection) -> ThrottleConfiguration? {
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
        guard let rate else { return nil }
        return ThrottleConfiguration(scope: scope, value: value, rate: rate, burst: burst)
    }
}
