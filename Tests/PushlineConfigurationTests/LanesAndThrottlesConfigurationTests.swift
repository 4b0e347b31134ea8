import PushlineConfiguration
import Testing

/// `policies.lanes` and `policies.throttles` (docs/policies.md): what they read, their defaults,
/// their variables, and errors with file, line and key.
@Suite("Lanes and throttles configuration")
struct LanesAndThrottlesConfigurationTests {
    private func policies(_ yaml: String, environment: [String: String] = [:]) throws -> DeliveryPolicies {
        let fixture = try ConfigurationFixture(pipelines: ["main.yaml": ConfigurationFixture.validPipeline + "\n" + yaml])
        return try #require(try fixture.load(environment: environment).pipelines.first).policies
    }

    @Test("without them: no lanes (one queue, nothing read ahead) and no throttles")
    func defaults() throws {
        let policies = try policies("")
        #expect(policies.lanes.lanes.isEmpty)
        #expect(policies.lanes.index(of: "bulk") == 0)
        #expect(policies.throttles.isEmpty)
    }

    @Test("lanes in the order written, the default lane, read-ahead; an unknown or missing lane is the default")
    func lanes() throws {
        let lanes = try policies("""
            policies:
              lanes:
                default: bulk
                read_ahead: 2000
                weights: { critical: 8, transactional: 4, bulk: 1 }
            """).lanes
        #expect(lanes.lanes == [.init(name: "critical", weight: 8), .init(name: "transactional", weight: 4), .init(name: "bulk", weight: 1)])
        #expect(lanes.readAhead == 2_000)
        #expect(lanes.index(of: "transactional") == 1)
        #expect(lanes.index(of: nil) == 2)
        #expect(lanes.index(of: "nope") == 2)
    }

    @Test("lightest_batches bounds the lightest lanes' batches within lightest_quiet of a lane above; not set by default, quiet 1s")
    func lightestBatches() throws {
        let defaults = try policies("policies:\n  lanes:\n    weights: { transactional: 4, bulk: 1 }\n").lanes
        #expect(defaults.lightestBatches == nil)
        #expect(defaults.lightestQuiet == .seconds(1))
        let lanes = try policies("""
            policies:
              lanes:
                lightest_batches: 1
                lightest_quiet: 250ms
                weights: { transactional: 4, bulk: 1 }
            """).lanes
        #expect(lanes.lightestBatches == 1)
        #expect(lanes.lightestQuiet == .milliseconds(250))
    }

    @Test("without default the first lane written is the default")
    func firstLaneIsDefault() throws {
        let lanes = try policies("policies:\n  lanes:\n    weights: { transactional: 4, bulk: 1 }\n").lanes
        #expect(lanes.index(of: nil) == 0)
    }

    @Test("throttles by app, campaign and pool; burst defaults to the rate; a variable changes a rate")
    func throttles() throws {
        let throttles = try policies("""
            policies:
              throttles:
                - { campaign: spring, rate: 50, burst: 10 }
                - { app: com.example.news, rate: 1000 }
                - { pool: default, rate: 20 }
            """, environment: ["PUSHLINE_PIPELINES_MAIN_POLICIES_THROTTLES_1_RATE": "500"]).throttles
        #expect(throttles == [ThrottleConfiguration(scope: .campaign, value: "spring", rate: 50, burst: 10),
                              ThrottleConfiguration(scope: .app, value: "com.example.news", rate: 500),
                              ThrottleConfiguration(scope: .pool, value: "default", rate: 20)])
        #expect(throttles.map(\.bucket) == ["campaign:spring", "app:com.example.news", "pool:default"])
    }

    @Test("errors name the line and the key", arguments: [
        ("policies:\n  lanes:\n    weights: { bulk: 0 }\n", 6, "policies.lanes.weights.bulk", ConfigurationError.Code.outOfRange),
        ("policies:\n  lanes:\n    default: express\n    weights: { bulk: 1 }\n", 6, "policies.lanes.default", .unknownReference),
        ("policies:\n  lanes:\n    read_ahead: -1\n", 6, "policies.lanes.read_ahead", .outOfRange),
        ("policies:\n  throttles:\n    - { campaign: spring }\n", 6, "policies.throttles[0].rate", .missingKey),
        ("policies:\n  throttles:\n    - { campaign: spring, app: com.example, rate: 5 }\n", 6, "policies.throttles[0].campaign", .invalidValue),
        ("policies:\n  throttles:\n    - { rate: 5 }\n", 6, "policies.throttles[0].app", .missingKey),
        ("policies:\n  throttles:\n    - { app: a, rate: 5 }\n    - { app: a, rate: 9 }\n", 6, "policies.throttles", .duplicate),
        ("policies:\n  throttles:\n    - { campaign: spring, rate: 5, per: hour }\n", 6, "policies.throttles[0].per", .unknownKey),
        // A pool apns.pools does not define would never match a delivery: the throttle would never hold one.
        ("policies:\n  throttles:\n    - { pool: sandbox, rate: 5 }\n", 6, "policies.throttles[0].pool", .unknownReference),
        // The bucket would overflow between the worker's asks, 10 ms apart: at 1,000/s it needs 10.
        ("policies:\n  throttles:\n    - { app: a, rate: 1000, burst: 9 }\n", 6, "policies.throttles[0].burst", .invalidValue),
    ] as [(String, Int, String, ConfigurationError.Code)])
    func invalid(yaml: String, line: Int, key: String, code: ConfigurationError.Code) throws {
        try ConfigurationFixture.expectPipelineError(yaml, line: line, key: key, code: code)
    }
}
