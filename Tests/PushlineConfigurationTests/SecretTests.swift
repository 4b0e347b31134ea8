import Foundation
import Kafka
import PushlineConfiguration
import PushlineTestKit
import Testing

@Suite("Secrets come from files or the environment and are never repeated")
struct SecretTests {
    static let password = "hunter2-c2VjcmV0"

    @Test("a password in the file is refused without being repeated")
    func inlinePassword() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  password: \(Self.password)\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .inlineSecret)
        #expect(error.key == "redis.password")
        #expect(error.line == 12)
        #expect(error.message.contains("password_file or PUSHLINE_REDIS_PASSWORD"))
        #expect(!error.description.contains(Self.password))
    }

    @Test("a key written into the file is refused without being repeated")
    func inlineKey() throws {
        let pem = try String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8)
        let body = pem.split(separator: "\n")[1]
        let indented = pem.split(separator: "\n").map { "        \($0)" }.joined(separator: "\n")
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(
            of: "      key_file: \(DevCredentials.privateKeyFile)", with: "      key: |\n" + indented)
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .inlineSecret)
        #expect(error.key == "apns.credentials.dev.key")
        #expect(error.message.contains("key_file or PUSHLINE_APNS_CREDENTIALS_DEV_KEY"))
        #expect(!error.description.contains(body))
    }

    @Test("key material in a setting that takes a path is refused without being repeated")
    func keyMaterialAsPath() throws {
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(
            of: DevCredentials.privateKeyFile, with: "\"-----BEGIN PRIVATE KEY-----c2VjcmV0\"")
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .inlineSecret)
        #expect(error.key == "apns.credentials.dev.key_file")
        #expect(!error.description.contains("c2VjcmV0"))
    }

    @Test("a secret librdkafka property in the file is refused and names its variable")
    func inlineKafkaSecret() throws {
        let worker = ConfigurationFixture.validWorker + "\nkafka:\n  properties:\n    sasl.password: \(Self.password)\n"
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .inlineSecret)
        #expect(error.key == "kafka.properties.sasl.password")
        #expect(error.line == 13)
        #expect(error.message.contains("PUSHLINE_KAFKA_PROPERTIES_SASL_PASSWORD"))
        #expect(!error.description.contains(Self.password))
    }

    @Test("secrets from the environment are used and never described")
    func environmentSecrets() throws {
        let configuration = try ConfigurationFixture().load(environment: [
            "PUSHLINE_REDIS_PASSWORD": Self.password, "PUSHLINE_KAFKA_PROPERTIES_SASL_PASSWORD": Self.password,
        ])
        #expect(configuration.redis.password == Self.password)
        #expect(configuration.kafka.secretProperties["sasl.password"]?.value == Self.password)
        #expect(configuration.kafka.properties["sasl.password"] == nil)
        var dumped = ""
        dump(configuration, to: &dumped)
        let printed = [String(describing: configuration), String(reflecting: configuration), dumped,
                       configuration.redis.description, configuration.kafka.description]
        #expect(printed.allSatisfy { !$0.contains(Self.password) })
        #expect(configuration.redis.description.hasSuffix("with password <redacted>"))
    }

    @Test("secret librdkafka properties reach the clients' configuration, which redacts them")
    func kafkaSecretsReachClients() throws {
        let worker = ConfigurationFixture.validWorker + "\nkafka:\n  properties:\n    sasl.username: pushline\n"
        let configuration = try ConfigurationFixture(worker: worker)
            .load(environment: ["PUSHLINE_KAFKA_PROPERTIES_SASL_PASSWORD": Self.password, "PUSHLINE_KAFKA_BOOTSTRAP_SERVERS": "k1:9092,k2:9092"])
        let pipeline = try #require(configuration.pipelines.first)
        let consumer = configuration.kafka.consumerConfiguration(for: pipeline)
        #expect(consumer.bootstrapServers == "k1:9092,k2:9092")
        #expect(consumer.groupID == "pushline")
        #expect(consumer.topics == ["pushline.intents"])
        #expect(consumer.additionalProperties == ["sasl.username": "pushline", "sasl.password": Self.password])
        #expect(configuration.kafka.producerConfiguration.additionalProperties["sasl.password"] == Self.password)
        #expect(consumer.description.contains("sasl.username=pushline"))
        #expect(!consumer.description.contains(Self.password))
        #expect(!configuration.kafka.producerConfiguration.description.contains(Self.password))
    }

    @Test("a password file gives its first line")
    func passwordFile() throws {
        let fixture = try ConfigurationFixture()
        try fixture.write(Self.password + "\n", to: "redis-password")
        try fixture.write(ConfigurationFixture.validWorker + "\nredis:\n  password_file: redis-password\n", to: "pushline.yaml")
        #expect(try fixture.load().redis.password == Self.password)
    }

    @Test("the provider key can come from the environment instead of a file")
    func keyFromEnvironment() throws {
        let pem = try String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8)
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(of: "      key_file: \(DevCredentials.privateKeyFile)\n", with: "")
        let configuration = try ConfigurationFixture(worker: worker).load(environment: ["PUSHLINE_APNS_CREDENTIALS_DEV_KEY": pem])
        guard case .token(let credentials)? = configuration.apns.credentials["dev"] else {
            Issue.record("expected token credentials")
            return
        }
        #expect(credentials.keyID == DevCredentials.keyID)
    }

    @Test("an unusable key from the environment is named by its variable, not repeated")
    func unusableKeyFromEnvironment() throws {
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(of: "      key_file: \(DevCredentials.privateKeyFile)\n", with: "")
        let errors = try ConfigurationFixture(worker: worker).errors(environment: ["PUSHLINE_APNS_CREDENTIALS_DEV_KEY": Self.password])
        let error = try #require(errors.only)
        #expect(error.code == .unusableCredentials)
        #expect(error.message == "PUSHLINE_APNS_CREDENTIALS_DEV_KEY is not a usable ES256 (.p8) private key")
        #expect(!error.description.contains(Self.password))
    }
}
