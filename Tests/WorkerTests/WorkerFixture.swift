import APNsClient
import APNsCore
import APNsSimulator
import Enrichment
import Foundation
import Kafka
import Pipeline
import PushlineTestKit
import Redis
import Worker

/// A worker wired to real components: a mock Kafka cluster, a real redis-server and an in-process
/// APNs simulator. Intents go in on `intents` (one partition, so order is kept); the worker's
/// outputs are read back with a consumer of their own. Every wait has a deadline.
final class WorkerFixture: Sendable {
    static let app = "com.example.pushline"
    static let intentsTopic = "pushline.intents"

    let redis: RedisServer
    let harness: SimulatorHarness
    let sender: APNsSender
    let worker: Worker
    private let outputs: KafkaConsumer
    /// Everything read back so far: (topic, value).
    private let received = RecordLog<(topic: String, value: [UInt8])>()
    /// Declared last so it outlives the clients above when the fixture goes away.
    let cluster: KafkaMockCluster

    /// - Parameter unregistered: tokens the simulator answers with 410 `Unregistered`, and when.
    init(unregistered: [(token: DeviceToken, at: Int64)] = []) async throws {
        cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic(Self.intentsTopic, partitions: 1)
        let outputTopics = ["pushline.outcomes", "pushline.token-events", "pushline.dlq"]
        for topic in outputTopics { try cluster.createTopic(topic, partitions: 1) }
        redis = try await RedisServer.start()

        var simulator = SimulatorConfiguration()
        simulator.devices = DeviceRegistry(acceptsUnknownTokens: true, entries: unregistered.map {
            .init(token: $0.token, topic: Self.app, environment: .sandbox, unregisteredAt: $0.at)
        })
        harness = try SimulatorHarness(configuration: simulator)
        var senderConfiguration = SenderConfiguration()
        senderConfiguration.caFile = harness.certificateFile
        sender = try APNsSender(configuration: senderConfiguration)
        let credentials = try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                                       p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
        try sender.addPool(named: "dev", credentials: .token(ProviderTokenSource(credentials: credentials)),
                           environment: APNsEnvironment(host: "localhost", port: harness.devicePort))

        var consumer = KafkaConsumerConfiguration(bootstrapServers: cluster.bootstrapServers, groupID: "worker", topics: [Self.intentsTopic])
        consumer.heartbeatInterval = .milliseconds(100)
        consumer.sessionTimeout = .seconds(3)
        consumer.autoCommitInterval = .milliseconds(200)
        let configuration = WorkerConfiguration(
            consumer: consumer, producer: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers),
            redis: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port)), pools: [.sandbox: "dev"])
        let catalog = try EnrichmentCatalog.load(templatesDirectory: RepositoryPaths.file("Config/templates"),
                                                 localesDirectory: RepositoryPaths.file("Config/locales"))
        worker = Worker(configuration: configuration, enricher: Enricher(catalog: catalog), sender: sender)

        outputs = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupID: "test-reader", topics: outputTopics))
        worker.start()
    }

    /// Publishes intents to the single intents partition, in order, and waits until Kafka has them.
    func publish(_ intents: [[UInt8]]) async throws {
        let cluster = cluster
        try await DedicatedThread.run {
            let reports = RecordLog<KafkaDeliveryReport>()
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers)) { event in
                if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
            }
            _ = try producer.send(intents.map { KafkaProducerMessage(topic: Self.intentsTopic, partition: 0, value: $0) })
            try Deadline.wait(for: "\(intents.count) intents published") { reports.all.count == intents.count }
            try producer.close()
        }
    }

    /// Reads the worker's outputs until `topic` holds `count` records in all, and returns them all
    /// as JSON objects.
    func records(on topic: String, count: Int) async throws -> [[String: Any]] {
        let outputs = outputs
        let received = received
        let values = try await DedicatedThread.run { () throws -> [[UInt8]] in
            let deadline = Deadline(.seconds(30), waitingFor: "\(count) records on \(topic)")
            func values() -> [[UInt8]] { received.all.filter { $0.topic == topic }.map(\.value) }
            while values().count < count {
                try deadline.check()
                let batch = outputs.poll(maxMessages: 500, timeout: .milliseconds(100))
                outputs.complete(batch)
                received.append(contentsOf: batch.map { (topic: $0.topicPartition.topic, value: $0.value ?? []) })
            }
            return values()
        }
        return values.map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
    }

    /// Stops the worker (draining) and everything else.
    func stop() async throws {
        let worker = worker
        let outputs = outputs
        try await DedicatedThread.run {
            try worker.stop()
            try outputs.close()
        }
        sender.shutdown()
        harness.stop()
        redis.stop()
    }

    /// An intent with a raw payload for `tokens` (sandbox); `extra` adds top-level fields (`"k":v,…`).
    static func intent(id: String, tokens: [DeviceToken], extra: String = "") -> [UInt8] {
        intent(id: id, recipients: #""tokens":[\#(tokens.map { "\"\($0.hex)\"" }.joined(separator: ","))]"#, extra: extra)
    }

    /// An intent with a raw payload for a user of the token registry (sandbox).
    static func intent(id: String, user: String) -> [UInt8] {
        intent(id: id, recipients: #""user":"\#(user)""#)
    }

    private static func intent(id: String, recipients: String, extra: String = "") -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"\(id)","app":"\(app)","environment":"sandbox",\(recipients),\(extra)
             "payload":{"aps":{"alert":"hello"}}}
            """.utf8)
    }

    /// Registers `tokens` for `user` in the worker's token registry.
    func register(_ tokens: [DeviceToken], user: String) async throws {
        let port = redis.port
        try await DedicatedThread.run {
            let registry = TokenRegistry(connection: try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port))))
            for token in tokens {
                try registry.register(user: user, app: Self.app, environment: "sandbox", token: token, registeredAt: 1_700_000_000_000)
            }
        }
    }

    static func token(_ index: Int) throws -> DeviceToken {
        try DeviceToken(String(format: "%064x", index + 1))
    }
}
