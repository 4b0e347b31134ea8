import PushlineConfiguration
import Runtime
import Testing

/// A pipeline's `policies:` section (docs/policies.md): defaults, rules, errors with file, line and key.
@Suite("Delivery policies configuration")
struct DeliveryPoliciesConfigurationTests {
    private func pipeline(_ policies: String, environment: [String: String] = [:]) throws -> PipelineConfiguration? {
        try ConfigurationFixture(pipelines: ["main.yaml": ConfigurationFixture.validPipeline + "\n" + policies]).load(environment: environment).pipelines.first
    }

    @Test("without policies: no TTL, no caps, transactional exempt, background 3 per hour, Live Activity 10 per minute")
    func defaults() throws {
        let policies = try #require(try pipeline("")).policies
        #expect(policies.timeToLive.fallback == nil)
        #expect(policies.frequencyCaps.rules.isEmpty)
        #expect(policies.frequencyCaps.exempt == ["transactional"])
        #expect(policies.backgroundBudget == DeliveryPolicies.Budget(limit: .init(limit: 3, window: .seconds(3_600))))
        #expect(policies.liveActivityBudget == DeliveryPolicies.Budget(limit: .init(limit: 10, window: .seconds(60))))
    }

    @Test("rules per category with several windows, a rule for every other category, budgets and a default TTL")
    func rules() throws {
        let policies = try #require(try pipeline("""
            policies:
              ttl: { default: 1d }
              frequency_caps:
                exempt: [transactional, security]
                rules:
                  - { category: marketing, limit: 3, window: 1h }
                  - { category: marketing, limit: 10, window: 1d }
                  - { limit: 20, window: 1d }
              background_budget: { limit: 2, window: 30m }
              live_activity_budget: { enabled: false }
            """)).policies
        #expect(policies.timeToLive.fallback == .seconds(86_400))
        let caps = policies.frequencyCaps.resolved { $0 }
        #expect(caps.limits(for: "marketing") == [.init(limit: 3, window: .seconds(3_600)), .init(limit: 10, window: .seconds(86_400))])
        #expect(caps.limits(for: "news") == [.init(limit: 20, window: .seconds(86_400))])
        #expect(caps.limits(for: "security").isEmpty)
        #expect(caps.limits(for: nil).isEmpty)
        #expect(policies.backgroundBudget.limit == .init(limit: 2, window: .seconds(1_800)))
        #expect(!policies.liveActivityBudget.enabled)
    }

    @Test("quiet hours are read: the window, its zone, its categories and the release interval (1 s by default, from its variable)")
    func quietHours() throws {
        let yaml = """
            policies:
              quiet_hours: { start: "22:00", end: "08:00", time_zone: Europe/Berlin, exempt_categories: [security, call] }
            """
        let window = try #require(try pipeline(yaml)?.policies.quietHours)
        #expect(window.start == TimeOfDay("22:00"))
        #expect(window.end == TimeOfDay("08:00"))
        #expect(window.timeZone == "Europe/Berlin")
        #expect(window.coverage == .allExcept(["security", "call"]))
        #expect(window.releaseInterval == .seconds(1))
        let overridden = try pipeline(yaml, environment: ["PUSHLINE_PIPELINES_MAIN_POLICIES_QUIET_HOURS_RELEASE_INTERVAL": "250ms"])
        #expect(overridden?.policies.quietHours?.releaseInterval == .milliseconds(250))
        #expect(try pipeline("")?.policies.quietHours == nil)
    }

    @Test("a rule's limit comes from its variable")
    func environmentOverride() throws {
        let policies = try #require(try pipeline("""
            policies:
              frequency_caps:
                rules:
                  - { category: marketing, limit: 3, window: 1h }
            """, environment: ["PUSHLINE_PIPELINES_MAIN_POLICIES_FREQUENCY_CAPS_RULES_0_LIMIT": "5"])).policies
        #expect(policies.frequencyCaps.resolved { $0 }.limits(for: "marketing") == [.init(limit: 5, window: .seconds(3_600))])
    }

    @Test("errors name the line and the key", arguments: [
        ("policies:\n  frequency_caps:\n    rules:\n      - { category: transactional, limit: 3, window: 1h }\n", 7,
         "policies.frequency_caps.rules[0].category", ConfigurationError.Code.invalidValue),
        ("policies:\n  frequency_caps:\n    rules:\n      - { category: marketing, window: 1h }\n", 7,
         "policies.frequency_caps.rules[0].limit", .missingKey),
        ("policies:\n  background_budget:\n    window: 2y\n", 6, "policies.background_budget.window", .wrongType),
        ("policies:\n  live_activity_budget:\n    limits: 3\n", 6, "policies.live_activity_budget.limits", .unknownKey),
        ("policies:\n  quiet_hours:\n    start: \"22:00\"\n", 6, "policies.quiet_hours.end", .missingKey),
        ("policies:\n  quiet_hours:\n    start: \"22:00\"\n    end: \"8 am\"\n", 7, "policies.quiet_hours.end", .wrongType),
        ("policies:\n  quiet_hours:\n    start: \"24:00\"\n    end: \"08:00\"\n", 6, "policies.quiet_hours.start", .wrongType),
        ("policies:\n  quiet_hours: { start: \"22:00\", end: \"08:00\", time_zone: Mars/Olympus }\n", 5,
         "policies.quiet_hours.time_zone", .wrongType),
        ("policies:\n  quiet_hours: { start: \"22:00\", end: \"22:00\" }\n", 5, "policies.quiet_hours.end", .invalidValue),
        ("policies:\n  quiet_hours: { start: \"22:00\", end: \"08:00\", categories: [marketing], exempt_categories: [call] }\n", 5,
         "policies.quiet_hours.exempt_categories", .invalidValue),
        ("policies:\n  quiet_hours: { start: \"22:00\", end: \"08:00\", stat: x }\n", 5, "policies.quiet_hours.stat", .unknownKey),
        ("policies:\n  quiet_hours: { start: \"22:00\", end: \"08:00\", release_interval: 2h }\n", 5,
         "policies.quiet_hours.release_interval", .outOfRange),
    ] as [(String, Int, String, ConfigurationError.Code)])
    func invalid(yaml: String, line: Int, key: String, code: ConfigurationError.Code) throws {
        try ConfigurationFixture.expectPipelineError(yaml, line: line, key: key, code: code)
    }
}
