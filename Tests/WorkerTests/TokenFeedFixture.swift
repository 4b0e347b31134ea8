import APNsCore
import Foundation
import Kafka
import Pipeline
import PushlineTestKit
import Redis
import Telemetry
import Worker

/// A ``TokenFeed`` on real components: a mock Kafka cluster (one `pushline.tokens` partition, so
/// order is kept) and a real redis-server. Records go in with ``publish(_:)``; the registry is read
/// with a connection of the fixture's own, and dead letters with a consumer of its own. Every wait
/// has a deadline; every method blocks, so async tests call them through `DedicatedThread`.
final class TokenFeedFixture: Sendable {
    static let app = "com.example.app"
    static let tokensTopic = "pushline.tokens"
    static let dlqTopic = "pushline.dlq"
    static let group = "token-feed"

    let redis: RedisServer
    let configuration: TokenFeedConfiguration
    /// Declared last so it outlives the clients that use it.
    let cluster: KafkaMockCluster

    init() throws {
        cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic(Self.tokensTopic, partitions: 1)
        try cluster.createTopic(Self.dlqTopic, partitions: 1)
        redis = try RedisServer()
        var consumer = KafkaConsumerConfiguration(bootstrapServers: cluster.bootstrapServers, groupID: Self.group, topics: [Self.tokensTopic])
        consumer.heartbeatInterval = .milliseconds(100)
        consumer.sessionTimeout = .seconds(3)
        consumer.autoCommitInterval = .milliseconds(200)
        // One attempt per call and short timeouts: the feed's own retry loop is what is under test.
        let redisConfiguration = RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port), connectTimeout: .seconds(1),
                                                    commandTimeout: .seconds(1), reconnect: .never)
        var feed = TokenFeedConfiguration(consumer: consumer, producer: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers),
                                          redis: redisConfiguration)
        feed.dlqTopic = Self.dlqTopic
        configuration = feed
    }

    /// A started feed on the fixture's topic, group and Redis, its events recorded in `events` and
    /// the error it fails on, if any, in `failures`; it registers key records under `keyEncryptionKey`.
    func startFeed(events: RecordLog<TokenFeed.Event> = RecordLog(), failures: RecordLog<String> = RecordLog(),
                   metrics: MetricsRegistry? = nil, keyEncryptionKey: KeyEncryptionKey? = nil) throws -> TokenFeed {
        var configuration = configuration
        configuration.keyEncryptionKey = keyEncryptionKey
        let feed = try TokenFeed(configuration: configuration, registry: metrics) { events.append(contentsOf: [$0]) }
        feed.start { failures.append(contentsOf: ["\($0)"]) }
        return feed
    }

    /// A string value of the fixture's Redis, read past the registries.
    func redisValue(_ key: String) throws -> String? {
        try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port)))
            .send(RedisCommand("GET", key)).bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Runs one command on the fixture's Redis, past the registry (to break what it expects).
    func redisCommand(_ arguments: String...) throws {
        _ = try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port)))
            .send(RedisCommand(arguments[0], Array(arguments.dropFirst())))
    }

    /// Publishes records to the single tokens partition, in order, and waits until Kafka has them.
    func publish(_ records: [[UInt8]]) throws {
        let reports = RecordLog<KafkaDeliveryReport>()
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers)) { event in
            if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
        }
        _ = try producer.send(records.map { KafkaProducerMessage(topic: Self.tokensTopic, partition: 0, value: $0) })
        try Deadline.wait(for: "\(records.count) token records published") { reports.all.count == records.count }
        try producer.close()
    }

    /// Waits until `feed` has applied or dead-lettered `count` records in all.
    func waitUntilHandled(_ count: Int, by feed: TokenFeed) throws {
        try Deadline.wait(for: "\(count) token records handled") {
            let statistics = feed.statistics
            return statistics.recordsApplied + statistics.deadLetters >= count
        }
    }

    /// The registry's devices of each user (sandbox), as `token@registered_at`.
    func devices(_ users: [String]) throws -> [[String]] {
        try registry().devices(users: users, app: Self.app, environment: "sandbox").map { devices in
            devices.map { "\($0.token.hex)@\($0.registeredAt)" }.sorted()
        }
    }

    func locales(_ users: [String]) throws -> [String?] {
        try registry().locales(users: users)
    }

    /// The encryption key registry of the fixture's Redis, opening keys with `keyEncryptionKey`.
    func keyRegistry(_ keyEncryptionKey: KeyEncryptionKey) throws -> EncryptionKeyRegistry {
        EncryptionKeyRegistry(connection: try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port))),
                              keyEncryptionKey: keyEncryptionKey)
    }

    private func registry() throws -> TokenRegistry {
        TokenRegistry(connection: try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port))))
    }

    /// Reads the DLQ from the start until it holds `count` records, and returns their values.
    func deadLetters(count: Int) throws -> [[UInt8]] {
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupID: "dlq-reader-\(UUID().uuidString)", topics: [Self.dlqTopic]))
        defer { try? consumer.close() }
        var values: [[UInt8]] = []
        let deadline = Deadline(after: .seconds(30))
        while values.count < count {
            try deadline.check(waitingFor: "\(count) dead letters")
            values += consumer.poll(maxMessages: 100, timeout: .milliseconds(100)).map { $0.value ?? [] }
        }
        return values
    }

    /// The feed group's committed offset of the tokens partition (nil when none is committed).
    func committedOffset() throws -> Int64? {
        let reader = try KafkaConsumer(configuration: KafkaConsumerConfiguration(bootstrapServers: cluster.bootstrapServers,
                                                                                 groupID: Self.group, topics: []))
        defer { try? reader.close() }
        let partition = KafkaTopicPartition(topic: Self.tokensTopic, partition: 0)
        return try reader.committedOffsets(for: [partition], timeout: .seconds(10))[partition]
    }

    /// A record in the schema of `pushline.tokens` (sandbox, the fixture's app).
    static func record(_ action: TokenRegistration.Action = .register, user: String, token: DeviceToken, at occurredAt: Int64,
                       locale: String? = nil) -> [UInt8] {
        TokenRegistration(action: action, app: app, environment: .sandbox, user: user, token: token, occurredAt: occurredAt,
                          locale: locale).encoded
    }

    static func token(_ index: Int) throws -> DeviceToken {
        try DeviceToken(String(format: "%064x", index + 1))
    }
}
