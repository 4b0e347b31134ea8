import APNsCore
import Enrichment
import Foundation
import Kafka
import Pipeline
import PushlineTestKit
import Redis
import TLS
import Testing
import Worker

/// Encrypted notifications through the whole pipeline (docs/service-extension.md): intent on mock
/// Kafka → worker (key registry in a real redis-server) → the simulator's inbox, opened by an
/// independent AES-GCM implementation (python3-cryptography).
@Suite("Encrypted deliveries", .serialized)
struct EncryptedDeliveryTests {
    private let keyEncryptionKey: KeyEncryptionKey

    init() throws {
        keyEncryptionKey = try KeyEncryptionKey(base64: Base64.encode(AES256GCM.randomKey()), source: "the test")
    }

    private func fixture() async throws -> WorkerFixture {
        let kek = keyEncryptionKey
        return try await WorkerFixture(configure: { $0.keyEncryptionKey = kek })
    }

    private static func chatIntent(id: String, token: DeviceToken, photo: String = "https://media.example.com/p/1.jpg",
                                   template: String = "chat_message_sealed") -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"\(id)","app":"\(WorkerFixture.app)","environment":"sandbox","tokens":["\(token.hex)"],
             "template":"\(template)","args":{"sender":"Anna","sender_id":"u-anna","text":"the code is 4711",
             "chat":{"id":"c-1"},"message_id":"m-\(id)","photo":"\(photo)"}}
            """.utf8)
    }

    private func register(_ key: [UInt8], version: Int64, token: DeviceToken, on fixture: WorkerFixture) async throws
        -> EncryptionKeyRegistry.Registration {
        let port = fixture.redis.port
        let kek = keyEncryptionKey
        return try await DedicatedThread.run {
            let connection = try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port)))
            return try EncryptionKeyRegistry(connection: connection, keyEncryptionKey: kek)
                .register(app: WorkerFixture.app, subject: .device(token), id: "device-key", version: version, key: key)
        }
    }

    /// A key record of the tokens feed for `token`'s key `feed-key`.
    private static func keyRecord(_ key: [UInt8], version: Int64, token: DeviceToken) -> [UInt8] {
        EncryptionKeyRecord(app: WorkerFixture.app, subject: .device(token), id: "feed-key", version: version, key: key).encoded
    }

    private static func payload(of delivered: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(delivered)) as? [String: Any])
    }

    @Test("an encrypted chat message reaches the inbox sealed, and python's AESGCM opens it")
    func sealedChatMessageOpensIndependently() async throws {
        let fixture = try await fixture()
        let token = try WorkerFixture.token(1)
        let key = try AES256GCM.randomKey()
        #expect(try await register(key, version: 1, token: token, on: fixture) == .registered)
        try await fixture.publish([Self.chatIntent(id: "sealed-1", token: token)])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        let quiet = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(quiet.count == 1, "one outcome per delivery")
        #expect(outcomes[0]["status"] as? String == "accepted")
        let inbox = fixture.harness.simulator.inbox()
        #expect(inbox.count == 1)
        let delivered = try #require(inbox.first)
        let payload = try Self.payload(of: delivered.body)
        let aps = try #require(payload["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["body"] as? String == "New message")
        #expect(alert["title"] == nil)
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(payload["attachment_url"] as? String == "https://media.example.com/p/1.jpg")
        #expect(payload["e2e_kid"] as? String == "device-key" && payload["e2e_kv"] as? Int == 1)
        #expect(!String(decoding: inbox[0].body, as: UTF8.self).contains("4711"), "APNs never sees the text")
        let box = try #require(payload["e2e"] as? String)
        let opened = try #require(try PythonAESGCM.open(box: box, key: key))
        let fields = try Self.payload(of: opened)
        #expect(fields["title"] as? String == "Anna")
        #expect(fields["body"] as? String == "the code is 4711")
        let communication = try #require(fields["communication"] as? [String: Any])
        #expect(communication["sender_id"] as? String == "u-anna" && communication["conversation_id"] as? String == "c-1")
    }

    @Test("no key registered: invalid/MissingEncryptionKey and nothing sent")
    func missingKey() async throws {
        let fixture = try await fixture()
        try await fixture.publish([Self.chatIntent(id: "no-key", token: try WorkerFixture.token(2))])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(outcomes.count == 1)
        #expect(outcomes[0]["status"] as? String == "invalid" && outcomes[0]["reason"] as? String == "MissingEncryptionKey")
        #expect(fixture.harness.simulator.inbox().isEmpty)
    }

    @Test("a bad attachment URL: invalid/BadAttachmentURL and nothing sent")
    func badAttachmentURL() async throws {
        let fixture = try await fixture()
        let token = try WorkerFixture.token(3)
        _ = try await register(try AES256GCM.randomKey(), version: 1, token: token, on: fixture)
        try await fixture.publish([Self.chatIntent(id: "bad-url", token: token, photo: "http://media.example.com/p.jpg")])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(outcomes.count == 1)
        #expect(outcomes[0]["status"] as? String == "invalid" && outcomes[0]["reason"] as? String == "BadAttachmentURL")
        #expect(fixture.harness.simulator.inbox().isEmpty)
    }

    @Test("a rotated key: later messages are sealed under the new version, which the old key does not open; an older version does not replace it")
    func rotatedKey() async throws {
        let fixture = try await fixture()
        let token = try WorkerFixture.token(4)
        let old = try AES256GCM.randomKey()
        let new = try AES256GCM.randomKey()
        _ = try await register(old, version: 1, token: token, on: fixture)
        try await fixture.publish([Self.chatIntent(id: "before", token: token)])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        #expect(try await register(new, version: 2, token: token, on: fixture) == .registered)
        #expect(try await register(old, version: 1, token: token, on: fixture) == .laterVersionStands(2))
        try await fixture.publish([Self.chatIntent(id: "after", token: token)])
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(outcomes.count == 2 && outcomes.allSatisfy { $0["status"] as? String == "accepted" })
        let payloads = try fixture.harness.simulator.inbox().map { try Self.payload(of: $0.body) }
        let versions = payloads.compactMap { $0["e2e_kv"] as? Int }.sorted()
        #expect(versions == [1, 2])
        let rotated = try #require(payloads.first { $0["e2e_kv"] as? Int == 2 }?["e2e"] as? String)
        #expect(try PythonAESGCM.open(box: rotated, key: new) != nil)
        #expect(try PythonAESGCM.open(box: rotated, key: old) == nil)
    }

    @Test("keys through the tokens feed: a key record, then a rotation to version 2; the next delivery opens with the new key in python's AESGCM")
    func rotationThroughTheTokensFeed() async throws {
        let fixture = try await fixture()
        let pipeline = fixture.pipeline
        let token = try WorkerFixture.token(5)
        let old = try AES256GCM.randomKey()
        let new = try AES256GCM.randomKey()
        var feedConfiguration = TokenFeedConfiguration(
            consumer: KafkaConsumerConfiguration(bootstrapServers: pipeline.cluster.bootstrapServers, groupID: "token-feed", topics: ["pushline.tokens"]),
            producer: KafkaProducerConfiguration(bootstrapServers: pipeline.cluster.bootstrapServers),
            redis: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: fixture.redis.port)))
        feedConfiguration.keyEncryptionKey = keyEncryptionKey
        let configuration = feedConfiguration
        let feed = try await DedicatedThread.run {
            try pipeline.cluster.createTopic("pushline.tokens", partitions: 1)
            let feed = try TokenFeed(configuration: configuration)
            feed.start()
            try pipeline.publish([Self.keyRecord(old, version: 1, token: token)], to: "pushline.tokens")
            try Deadline.wait(for: "the first key registered") { feed.statistics.keysApplied == 1 }
            return feed
        }
        try await fixture.publish([Self.chatIntent(id: "feed-before", token: token)])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        try await DedicatedThread.run {
            try pipeline.publish([Self.keyRecord(new, version: 2, token: token), Self.keyRecord(old, version: 1, token: token)], to: "pushline.tokens")
            try Deadline.wait(for: "the rotation read") { feed.statistics.keysApplied == 3 }
        }
        try await fixture.publish([Self.chatIntent(id: "feed-after", token: token)])
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await DedicatedThread.run { try feed.stop() }
        try await fixture.stop()

        #expect(outcomes.count == 2 && outcomes.allSatisfy { $0["status"] as? String == "accepted" })
        #expect(feed.statistics.deadLetters == 0)
        let payloads = try fixture.harness.simulator.inbox().map { try Self.payload(of: $0.body) }
        #expect(payloads.compactMap { $0["e2e_kv"] as? Int }.sorted() == [1, 2], "the replayed version 1 did not roll the key back")
        #expect(payloads.allSatisfy { $0["e2e_kid"] as? String == "feed-key" })
        let before = try #require(payloads.first { $0["e2e_kv"] as? Int == 1 }?["e2e"] as? String)
        let after = try #require(payloads.first { $0["e2e_kv"] as? Int == 2 }?["e2e"] as? String)
        #expect(try PythonAESGCM.open(box: before, key: old) != nil)
        let opened = try #require(try PythonAESGCM.open(box: after, key: new))
        #expect(try Self.payload(of: opened)["body"] as? String == "the code is 4711")
        #expect(try PythonAESGCM.open(box: after, key: old) == nil)
    }
}
