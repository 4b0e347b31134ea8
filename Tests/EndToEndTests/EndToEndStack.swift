import APNsCore
import APNsSimulator
import Foundation
import Kafka
import PushlineTestKit

/// Real components for `pushline run` subprocesses: librdkafka's mock cluster (intents on
/// `partitions` partitions, the three output topics), a redis-server, and the simulator in this
/// process, whose inbox says what reached "APNs". Every method blocks: tests call them inside
/// `DedicatedThread.run`.
final class EndToEndStack: Sendable {
    static let intentsTopic = "pushline.intents"

    let cluster: KafkaMockCluster
    let redis: RedisServer
    let harness: SimulatorHarness
    let partitionCount: Int

    /// - Parameter unregistered: intent indexes whose token the simulator answers with 410
    ///   `Unregistered`.
    init(partitions: Int = 4, unregistered: [Int] = []) throws {
        partitionCount = partitions
        cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic(Self.intentsTopic, partitions: partitions)
        for topic in LocalPipeline.outputTopics { try cluster.createTopic(topic, partitions: 1) }
        redis = try RedisServer()
        var simulator = SimulatorConfiguration()
        simulator.devices = DeviceRegistry(acceptsUnknownTokens: true, entries: try unregistered.map {
            .init(token: try DeviceToken(Self.token($0)), topic: LocalPipeline.app, environment: .sandbox, unregisteredAt: 1_700_000_000_000)
        })
        harness = try SimulatorHarness(configuration: simulator)
    }

    /// A configuration of these components for the consumer group `e2e`, logging at `info`, with
    /// metrics on a free port. A member that stops heartbeating loses its partitions after 6 s
    /// (librdkafka's default: 45 s).
    func configuration() throws -> LocalRunConfiguration {
        var configuration = LocalRunConfiguration(bootstrapServers: cluster.bootstrapServers, redisPort: redis.port,
                                                  simulatorPort: harness.devicePort, caFile: harness.certificateFile)
        configuration.group = "e2e"
        configuration.metricsPort = try FreePort.next()
        configuration.kafkaProperties = ["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]
        configuration.logLevel = "info"
        return configuration
    }

    /// Starts `pushline run` with `configuration`.
    func startWorker(_ configuration: LocalRunConfiguration) throws -> ServerProcess {
        try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", try configuration.write()])
    }

    /// Starts `pushline run` with a fresh ``configuration()`` and waits until its `/readyz`
    /// answers 200 (joined its group, Redis reachable).
    func startReadyWorker() throws -> (process: ServerProcess, endpoints: WorkerEndpoints) {
        let configuration = try configuration()
        guard let port = configuration.metricsPort else { throw TestKitError("the configuration has no metrics port") }
        let process = try startWorker(configuration)
        let endpoints = WorkerEndpoints(port: port)
        do {
            try endpoints.wait(for: "/readyz", status: 200)
        } catch {
            process.stop()
            throw error
        }
        return (process, endpoints)
    }

    /// A ready worker (``startReadyWorker()``) under load: intents `0..<total` arriving at
    /// `perSecond`, read back until `before` of them have their outcome — where the outage tests
    /// inject their fault. The caller stops the worker.
    func readyWorkerUnderLoad(total: Int, perSecond: Int, before: Int)
        throws -> (process: ServerProcess, endpoints: WorkerEndpoints, log: OutcomeLog, publisher: BackgroundWork) {
        let (process, endpoints) = try startReadyWorker()
        do {
            let log = try OutcomeLog(self)
            let publisher = publishSteadily(0..<total, perSecond: perSecond)
            try log.read(waitingFor: "outcomes before the fault") { $0.count >= before }
            return (process, endpoints, log, publisher)
        } catch {
            process.stop()
            throw error
        }
    }

    /// Publishes intents `range` (``intent(_:)``) — all at once, or at about `perSecond` (a share
    /// every 50 ms) — and waits until Kafka has them all.
    func publish(_ range: Range<Int>, perSecond: Int? = nil) throws {
        try publish(range.map(Self.intent), perSecond: perSecond)
    }

    /// Publishes `values` as they are, in chunks at about `perSecond` when given, to `partition`
    /// (else where the partitioner puts them), and waits until Kafka has them all.
    func publish(_ values: [[UInt8]], perSecond: Int? = nil, partition: Int32? = nil) throws {
        let acknowledged = RecordLog<KafkaDeliveryReport>()
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers)) { event in
            if case .deliveryReports(let reports) = event { acknowledged.append(contentsOf: reports) }
        }
        let chunk = perSecond.map { max(1, $0 / 20) } ?? values.count
        for start in stride(from: 0, to: values.count, by: chunk) {
            _ = try producer.send(values[start..<min(start + chunk, values.count)].map {
                KafkaProducerMessage(topic: Self.intentsTopic, partition: partition, value: $0)
            })
            if perSecond != nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        try Deadline.wait(for: "\(values.count) intents acknowledged") { acknowledged.all.count == values.count }
        try producer.close()
    }

    /// ``publish(_:perSecond:)`` on a thread of its own; the work's `wait` returns when all are
    /// acknowledged.
    func publishSteadily(_ range: Range<Int>, perSecond: Int) -> BackgroundWork {
        BackgroundWork { [self] in try publish(range, perSecond: perSecond) }
    }

    /// Intent `index`: a raw alert to the device token ``token(_:)``, id `e2e-<index>`.
    static func intent(_ index: Int) -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"e2e-\(index)","app":"\(LocalPipeline.app)","environment":"sandbox",\
            "tokens":["\(token(index))"],"payload":{"aps":{"alert":"hello \(index)"}}}
            """.utf8)
    }

    static func token(_ index: Int) -> String {
        String(format: "%064x", index + 1)
    }

    /// The simulator's inbox: how many notifications each token received.
    func inboxCounts() -> [String: Int] {
        harness.simulator.inbox().reduce(into: [:]) { counts, notification in counts[notification.token ?? "", default: 0] += 1 }
    }

    /// The keys of idempotency claims that are still `pending` (a delivery claimed and not settled;
    /// a worker's claims read `pending <owner>`).
    func pendingClaims() throws -> Set<String> {
        try redis.pendingClaimKeys()
    }

    /// The recorded watermark of each intents partition that has one (`pushline:recorded:<topic>:<partition>`:
    /// every message below it has all its outputs in Kafka), by partition.
    func recordedWatermarks() throws -> [Int32: Int64] {
        let keys = try redisCommand("KEYS", "pushline:recorded:\(Self.intentsTopic):*").split(separator: "\n").map(String.init)
        var watermarks: [Int32: Int64] = [:]
        for key in keys where !key.isEmpty {
            guard let partition = key.split(separator: ":").last.flatMap({ Int32($0) }),
                  let offset = Int64(try redisCommand("GET", key).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw TestKitError("a recorded watermark that is not one: \(key)")
            }
            watermarks[partition] = offset
        }
        return watermarks
    }

    /// Runs a command through redis-cli (Debian package redis-tools) and returns what it printed.
    @discardableResult
    func redisCommand(_ arguments: String...) throws -> String {
        let cli = try ExternalCommand.locate("redis-cli", package: "redis-tools")
        return try ExternalCommand.run(cli, ["-h", "127.0.0.1", "-p", String(redis.port)] + arguments).standardOutput
    }

    /// The offsets `group` committed on the intents' partitions, by partition (read by a consumer
    /// with no topics, which does not join the group: docs/kafka.md).
    func committedOffsets(group: String) throws -> [Int32: Int64] {
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupID: group, topics: []))
        defer { try? consumer.close() }
        let partitions = (0..<Int32(partitionCount)).map { KafkaTopicPartition(topic: Self.intentsTopic, partition: $0) }
        return Dictionary(uniqueKeysWithValues: try consumer.committedOffsets(for: partitions, timeout: .seconds(10)).map { ($0.partition, $1) })
    }

    /// Joins `group` as a new member and returns the offset of the first message it is given on
    /// each of `partitions` (which must all have messages left).
    func firstOffsets(group: String, partitions: Set<Int32>) throws -> [Int32: Int64] {
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupID: group, topics: [Self.intentsTopic]))
        defer { try? consumer.close() }
        var first: [Int32: Int64] = [:]
        try Deadline.wait(.seconds(60), for: "a message from each of partitions \(partitions.sorted())") {
            for message in consumer.poll(maxMessages: 100, timeout: .milliseconds(50)) where first[message.topicPartition.partition] == nil {
                first[message.topicPartition.partition] = message.offset
            }
            return partitions.isSubset(of: first.keys)
        }
        return first
    }

    func stop() {
        harness.stop()
        redis.stop()
    }
}
