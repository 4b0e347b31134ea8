import PushlineConfiguration
import PushlineTestKit
import Testing

@Suite("The tokens section")
struct TokensConfigurationTests {
    @Test("Config/pushline.yaml turns the feed on with the documented topic, group and DLQ")
    func exampleEnablesFeed() throws {
        let tokens = try PushlineConfiguration.load(file: RepositoryPaths.file("Config/pushline.yaml"), environment: [:]).tokens
        #expect(tokens.enabled)
        #expect(tokens.topic == "pushline.tokens")
        #expect(tokens.group == "pushline-tokens")
        #expect(tokens.dlq == "pushline.dlq")
        #expect(tokens.batchSize == 500)
    }

    @Test("without a tokens section the feed is off, with the default names")
    func defaults() throws {
        let tokens = try ConfigurationFixture().load().tokens
        #expect(!tokens.enabled)
        #expect(tokens.topic == "pushline.tokens")
        #expect(tokens.group == "pushline-tokens")
        #expect(tokens.dlq == "pushline.dlq")
    }

    @Test("every key is read from the file, and PUSHLINE_TOKENS_… variables override them")
    func fileAndVariables() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + """

            tokens:
              enabled: true
              topic: app.tokens
              group: registry
              dlq: app.dlq
              batch_size: 50
            """)
        let fromFile = try fixture.load().tokens
        #expect([fromFile.topic, fromFile.group, fromFile.dlq] == ["app.tokens", "registry", "app.dlq"])
        #expect(fromFile.enabled && fromFile.batchSize == 50)
        let overridden = try fixture.load(environment: ["PUSHLINE_TOKENS_ENABLED": "false", "PUSHLINE_TOKENS_TOPIC": "other.tokens"]).tokens
        #expect(!overridden.enabled)
        #expect(overridden.topic == "other.tokens")
        #expect(overridden.group == "registry")
    }

    @Test("wrong types, unknown keys and unknown variables are reported with file, line and key")
    func problemsAreReported() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + """

            tokens:
              enabled: yes please
              topic: "no spaces allowed"
              batch_size: 0
              colour: blue
            """)
        let errors = fixture.errors(environment: ["PUSHLINE_TOKENS_GROOP": "x"])
        #expect(errors.map(\.code) == [.wrongType, .wrongType, .outOfRange, .unknownKey, .unknownVariable])
        #expect(errors.map(\.key) == ["tokens.enabled", "tokens.topic", "tokens.batch_size", "tokens.colour", "PUSHLINE_TOKENS_GROOP"])
        #expect(errors.first?.description == #"\#(fixture.file):12: tokens.enabled: must be true or false, got "yes please""#)
        #expect(errors[3].message.contains("known keys: batch_size, dlq, enabled, group, topic"))
    }
}
