import APNsCore
import Enrichment
import Testing

/// The policy fields of schema v1 and of templates' `policies:`, as the policy stage reads them on
/// each delivery (docs/policies.md).
@Suite("Delivery policy fields")
struct DeliveryPolicyTraitsTests {
    private static let templates = """
        templates:
          digest:
            category: DIGEST
            interruption_level: passive
            alert: { body: "Your week" }
            policies:
              category: marketing
              ttl: 86400
              lane: bulk
              respect_quiet_hours: false
          plain:
            alert: { body: "hi" }
        """

    @Test("the intent's policy fields decode; aps.category stays category")
    func intentFields() throws {
        let intent = try IntentDecoder.decode(Array("""
            {"id":"i-1","app":"a","tokens":["0a"],"template":"t","category":"ACTIONS","policy_category":"marketing",
             "lane":"bulk","expires_at":1764500000,"respect_quiet_hours":false,"campaign":"black-friday"}
            """.utf8))
        #expect(intent.overrides.category == "ACTIONS")
        #expect(intent.policy == Intent.Policy(category: "marketing", lane: "bulk", expiresAt: 1_764_500_000, respectQuietHours: false,
                                               campaign: "black-friday"))
    }

    @Test("wrong types are refused with their path", arguments: [
        (#""respect_quiet_hours":"no""#, "$.respect_quiet_hours", IntentDecodingError.Code.wrongType),
        (#""expires_at":-1"#, "$.expires_at", .invalidValue),
        (#""policy_category":3"#, "$.policy_category", .wrongType),
    ])
    func wrongTypes(member: String, path: String, code: IntentDecodingError.Code) throws {
        #expect {
            _ = try IntentDecoder.decode(Array(#"{"id":"i-1","app":"a","tokens":["0a"],"template":"t",\#(member)}"#.utf8))
        } throws: { error in
            (error as? IntentDecodingError)?.code == code && (error as? IntentDecodingError)?.path == path
        }
    }

    @Test("the template's policies fill what the intent leaves out; the intent's win")
    func templateDefaults() throws {
        let fixture = try CatalogFixture(templates: Self.templates)
        let fromTemplate = try #require(try fixture.deliveries(#""template":"digest""#).first).policy
        #expect(fromTemplate.category == "marketing")
        #expect(fromTemplate.timeToLiveSeconds == 86_400)
        #expect(fromTemplate.lane == "bulk")
        #expect(!fromTemplate.respectQuietHours)
        #expect(fromTemplate.interruptionLevel == .passive)
        let overridden = try #require(try fixture.deliveries(#""template":"digest","policy_category":"news","lane":"critical","respect_quiet_hours":true,"interruption_level":"time-sensitive""#).first).policy
        #expect(overridden.category == "news")
        #expect(overridden.lane == "critical")
        #expect(overridden.respectQuietHours)
        #expect(overridden.interruptionLevel == .timeSensitive)
        let plain = try #require(try fixture.deliveries(#""template":"plain""#).first).policy
        #expect(plain == DeliveryPolicyTraits())
    }

    @Test("a template's policies are checked like the rest of the file", arguments: [
        ("templates:\n  a:\n    policies:\n      ttl: 1h\n", 4, "templates.a.policies.ttl"),
        ("templates:\n  a:\n    policies:\n      ttl: 0\n", 4, "templates.a.policies.ttl"),
        ("templates:\n  a:\n    policies:\n      quiet: true\n", 4, "templates.a.policies.quiet"),
    ] as [(String, Int, String)])
    func invalidPolicies(yaml: String, line: Int, key: String) throws {
        #expect {
            _ = try CatalogFixture(templates: yaml).catalog()
        } throws: { error in
            (error as? CatalogLoadError)?.line == line && (error as? CatalogLoadError)?.key == key
        }
    }
}
