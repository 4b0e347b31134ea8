import APNsClient
import APNsCore
import APNsSimulator
import Enrichment
import Foundation
import Kafka
import PushlineConfiguration
import Redis
import Runtime
import Synchronization
import Worker

/// A worker wired to real components: a mock Kafka cluster, a real redis-server (or, for the demo
/// without one, in-memory stores) and an in-process APNs simulator, serving the example app's
/// templates. Intents go in on `intents` (one
/// partition, so order is kept); the worker's outputs are read back with a consumer of its own.
/// Every wait has a deadline; every method blocks, so async callers run it on a thread of their own
/// (the tests' `DedicatedThread`). The worker tests and `pushline-dev demo` share it.
public final class LocalPipeline: Sendable {
    public static let app = "com.example.pushline"
    public static let intentsTopic = "pushline.intents"
    public static let outputTopics = ["pushline.outcomes", "pushline.token-events", "pushline.dlq"]

    /// Where the worker keeps its claims, collapse windows and token registry.
    public enum Stores: Sendable {
        /// A redis-server started on a free port (``redis``).
        case redisServer
        /// The worker's in-memory stores (``WorkerConfiguration/Stores/inMemory``): no redis-server.
        case inMemory
    }

    /// The redis-server the worker uses; nil with in-memory stores.
    public let redis: RedisServer?
    public let harness: SimulatorHarness
    public let sender: APNsSender
    public let worker: Worker
    /// The templates and strings the worker serves.
    public let catalog: CatalogStore
    private let outputs: KafkaConsumer
    /// Everything read back so far: (topic, value).
    private let received = RecordLog<(topic: String, value: [UInt8])>()
    /// Declared last so it outlives the clients above when the pipeline goes away.
    public let cluster: KafkaMockCluster
    /// Whether ``stop()`` was called; a pipeline released without it is stopped then (`deinit`).
    private let stopped = Atomic(false)

    /// Starts everything and the worker. Throws, naming the Debian package, when `stores` is
    /// ``Stores/redisServer`` and redis-server is not installed.
    /// - Parameters:
    ///   - stores: a redis-server of its own, or in-memory stores.
    ///   - unregistered: tokens the simulator answers with 410 `Unregistered`, and when.
    ///   - catalog: the templates and strings to serve; by default the example app's (``catalogStore()``).
    ///   - telemetry: where the worker's metrics and logs go.
    ///   - senderMetrics: where the sender reports (`pushline run` and the demo: a `SenderMetricsRecorder`).
    ///   - configure: changes to the worker's configuration (batching, limits, policies, TTLs).
    ///   - configureSender: changes to the sender's configuration (timeouts, retries); its
    ///     `onUncertain` follows the worker's, as in `pushline run`.
    public init(stores: Stores = .redisServer, unregistered: [(token: DeviceToken, at: Int64)] = [], catalog: CatalogStore? = nil,
                telemetry: WorkerTelemetry = WorkerTelemetry(), senderMetrics: SenderMetrics = NoSenderMetrics(),
                configure: (inout WorkerConfiguration) -> Void = { _ in },
                configureSender: (inout SenderConfiguration) -> Void = { _ in }) throws {
        cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic(Self.intentsTopic, partitions: 1)
        for topic in Self.outputTopics { try cluster.createTopic(topic, partitions: 1) }
        let redis = stores == .redisServer ? try RedisServer() : nil
        self.redis = redis

        var simulator = SimulatorConfiguration()
        simulator.devices = DeviceRegistry(acceptsUnknownTokens: true, entries: unregistered.map {
            .init(token: $0.token, topic: Self.app, environment: .sandbox, unregisteredAt: $0.at)
        })
        harness = try SimulatorHarness(configuration: simulator)
        let kafka = cluster.bootstrapServers
        var configuration = redis.map { Self.workerConfiguration(kafka: kafka, redisPort: $0.port) }
            ?? Self.workerConfiguration(kafka: kafka, stores: .inMemory)
        configuration.consumer.sessionTimeout = .seconds(3)
        configuration.consumer.autoCommitInterval = .milliseconds(200)
        configure(&configuration)
        let onUncertain = configuration.onUncertain
        sender = try Self.sender(port: harness.devicePort, caFile: harness.certificateFile, metrics: senderMetrics) { sender in
            sender.onUncertain = onUncertain
            configureSender(&sender)
        }
        let catalog = try catalog ?? Self.catalogStore()
        self.catalog = catalog
        worker = try Worker(configuration: configuration, catalog: catalog, sender: sender, telemetry: telemetry)

        outputs = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupID: "output-reader", topics: Self.outputTopics))
        worker.start()
    }

    /// A sender with one pool, `dev`, signed with the dev key and trusting `caFile`, to a simulator
    /// on localhost, reporting to `metrics`, with the changes of `configure`.
    public static func sender(port: UInt16, caFile: String, metrics: SenderMetrics = NoSenderMetrics(),
                              configure: (inout SenderConfiguration) -> Void = { _ in }) throws -> APNsSender {
        var configuration = SenderConfiguration()
        configuration.caFile = caFile
        configure(&configuration)
        let sender = try APNsSender(configuration: configuration, metrics: metrics)
        let credentials = try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                                       p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
        try sender.addPool(named: "dev", credentials: .token(ProviderTokenSource(credentials: credentials)),
                           environment: APNsEnvironment(host: "localhost", port: port))
        return sender
    }

    /// A worker of the `worker` group on ``intentsTopic``, with `stores`, sending sandbox intents
    /// through the `dev` pool of ``sender(port:caFile:metrics:)``.
    /// Built by the function `pushline run` builds its workers with, from a pipeline `default` at
    /// the defaults of docs/configuration.md, then with the local cluster's address and a 100 ms
    /// heartbeat (rebalances in tests settle fast).
    public static func workerConfiguration(kafka bootstrapServers: String, stores: WorkerConfiguration.Stores) -> WorkerConfiguration {
        let settings = PushlineConfiguration()
        var pipeline = PipelineConfiguration(name: "default", file: "", sourceGroup: "worker",
                                             templatesDirectory: RepositoryPaths.file("Config/templates"),
                                             localesDirectory: RepositoryPaths.file("Config/locales"), apnsPool: "dev", dedupe: settings.dedupe)
        pipeline.sourceTopic = intentsTopic
        // The sender's `dev` pool serves sandbox intents (``sender(port:caFile:metrics:configure:)``).
        let pool = APNsPoolConfiguration(name: "dev", credentials: "dev", environment: .sandbox)
        var configuration = WorkerConfiguration(pipeline: pipeline, pool: pool, settings: settings)
        configuration.stores = stores
        // The mock cluster's address as librdkafka takes it.
        configuration.consumer.bootstrapServers = bootstrapServers
        configuration.producer.bootstrapServers = bootstrapServers
        configuration.consumer.heartbeatInterval = .milliseconds(100)
        return configuration
    }

    /// ``workerConfiguration(kafka:stores:)`` with Redis on 127.0.0.1 at `redisPort`.
    public static func workerConfiguration(kafka bootstrapServers: String, redisPort: Int) -> WorkerConfiguration {
        workerConfiguration(kafka: bootstrapServers, stores: .redis(RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redisPort))))
    }

    /// The example app's templates (`Config/templates`) and strings (`Config/locales`).
    public static func catalogStore() throws -> CatalogStore {
        try CatalogStore(templatesDirectory: SharedFiles.path("Config/templates"), localesDirectory: SharedFiles.path("Config/locales"))
    }

    /// Publishes intents (or records of another topic of the cluster) to the topic's partition 0,
    /// in order, and waits until Kafka has them.
    public func publish(_ intents: [[UInt8]], to topic: String = LocalPipeline.intentsTopic) throws {
        let reports = RecordLog<KafkaDeliveryReport>()
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers)) { event in
            if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
        }
        _ = try producer.send(intents.map { KafkaProducerMessage(topic: topic, partition: 0, value: $0) })
        try Deadline.wait(for: "\(intents.count) records published to \(topic)") { reports.all.count == intents.count }
        try producer.close()
    }

    /// Reads the worker's outputs until `done` holds for everything read so far, and returns it all
    /// as (topic, value) in the order read. Timing out, the error says how many records of each
    /// topic had come and where each topic ends in the cluster (whether the worker wrote what was
    /// not read back).
    public func outputs(timeout: Duration = .seconds(30), waitingFor what: String,
                        until done: ([(topic: String, value: [UInt8])]) -> Bool) throws -> [(topic: String, value: [UInt8])] {
        let deadline = Deadline(after: timeout)
        while !done(received.all) {
            try deadline.check(waitingFor: "\(what) (read by then: \(Self.countsByTopic(received.all)); the topics' ends: \(topicEnds()))")
            let batch = outputs.poll(maxMessages: 500, timeout: .milliseconds(100))
            outputs.complete(batch)
            received.append(contentsOf: batch.map { (topic: $0.topicPartition.topic, value: $0.value ?? []) })
        }
        return received.all
    }

    /// Each topic's end offset in the cluster (`pushline.intents 1, pushline.outcomes 0, …`, partition
    /// 0 of each), read outside any group; a topic whose end cannot be read names the error instead.
    private func topicEnds() -> String {
        let reader: KafkaTopicReader
        do { reader = try KafkaTopicReader(configuration: KafkaReaderConfiguration(bootstrapServers: cluster.bootstrapServers)) } catch {
            return "not read (\(error))"
        }
        return ([Self.intentsTopic] + Self.outputTopics).map { topic in
            do { return "\(topic) \(try reader.watermarks(of: KafkaTopicPartition(topic: topic, partition: 0)).upperBound)" } catch {
                return "\(topic) not read (\(error))"
            }
        }.joined(separator: ", ")
    }

    /// `3 on pushline.outcomes, 1 on pushline.tokens`, topics by name; `nothing` when empty.
    static func countsByTopic(_ records: [(topic: String, value: [UInt8])]) -> String {
        let counts = Dictionary(records.map { ($0.topic, 1) }, uniquingKeysWith: +)
        guard !counts.isEmpty else { return "nothing" }
        return counts.sorted { $0.key < $1.key }.map { "\($0.value) on \($0.key)" }.joined(separator: ", ")
    }

    /// Stops the worker (draining) and everything else.
    public func stop() throws {
        stopped.store(true, ordering: .relaxed)
        try Self.stop(worker: worker, outputs: outputs, sender: sender, harness: harness, redis: redis)
    }

    private static func stop(worker: Worker, outputs: KafkaConsumer, sender: APNsSender, harness: SimulatorHarness,
                             redis: RedisServer?) throws {
        try worker.stop()
        try outputs.close()
        sender.shutdown()
        harness.stop()
        redis?.stop()
    }

    /// A pipeline released without ``stop()`` (a test that threw first) would leave its worker
    /// running and its clients retrying the port of a cluster that is gone: it is stopped on a
    /// thread of its own (stopping blocks, and the release may happen on Swift's cooperative pool),
    /// which holds the cluster until the clients are closed.
    deinit {
        guard !stopped.load(ordering: .relaxed) else { return }
        let (worker, outputs, sender, harness, redis, cluster) = (worker, outputs, sender, harness, redis, cluster)
        ServiceThread().start(name: "pushline-local-stop") {
            try withExtendedLifetime(cluster) {
                try Self.stop(worker: worker, outputs: outputs, sender: sender, harness: harness, redis: redis)
            }
        }
    }
}
