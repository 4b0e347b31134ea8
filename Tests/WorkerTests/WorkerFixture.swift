import APNsClient
import APNsCore
import Enrichment
import Foundation
import Kafka
import Pipeline
import PushlineTestKit
import Redis
import Telemetry
import Worker

/// The worker tests' view of a `LocalPipeline` (a worker on mock Kafka, a real redis-server and an
/// in-process APNs simulator), from async code, with intents made to measure.
final class WorkerFixture: Sendable {
    static let app = LocalPipeline.app

    let pipeline: LocalPipeline
    var harness: SimulatorHarness { pipeline.harness }
    /// Always there: the fixture's pipeline runs a redis-server.
    var redis: RedisServer { pipeline.redis! }

    let registry: MetricsRegistry
    let logLines: LogLines
    /// The worker's registry and logger (into ``logLines``), for what runs beside it.
    let telemetry: WorkerTelemetry

    /// - Parameters:
    ///   - unregistered: tokens the simulator answers with 410 `Unregistered`, and when.
    ///   - catalog: the templates and strings; by default the example app's.
    ///   - configure: changes to the worker's configuration.
    init(unregistered: [(token: DeviceToken, at: Int64)] = [], catalog: CatalogStore? = nil,
         configure: @escaping @Sendable (inout WorkerConfiguration) -> Void = { _ in },
         sender configureSender: @escaping @Sendable (inout SenderConfiguration) -> Void = { _ in }) async throws {
        let registry = MetricsRegistry()
        let logLines = LogLines()
        self.registry = registry
        self.logLines = logLines
        let telemetry = WorkerTelemetry(registry: registry, logger: Logger(label: "pushline.worker") {
            JSONLogHandler(label: $0, logLevel: .info, writer: logLines)
        })
        self.telemetry = telemetry
        pipeline = try await DedicatedThread.run { try LocalPipeline(unregistered: unregistered, catalog: catalog, telemetry: telemetry, configure: configure,
                                                                      configureSender: configureSender) }
    }

    /// Publishes intents to the single intents partition, in order, and waits until Kafka has them.
    func publish(_ intents: [[UInt8]]) async throws {
        let pipeline = pipeline
        try await DedicatedThread.run { try pipeline.publish(intents) }
    }

    /// Reads the worker's outputs until `topic` holds `count` records in all, and returns them all
    /// as JSON objects. Failing (timing out), the error carries each topic's end in the cluster,
    /// the worker's metrics that are not 0 and its last log lines.
    func records(on topic: String, count: Int) async throws -> [[String: Any]] {
        let pipeline = pipeline
        let values: [[UInt8]]
        do {
            values = try await DedicatedThread.run { () throws -> [[UInt8]] in
                try pipeline.outputs(waitingFor: "\(count) records on \(topic)") { received in
                    received.count { $0.topic == topic } >= count
                }.filter { $0.topic == topic }.map(\.value)
            }
        } catch {
            throw LocalStackError("\(error); the worker's metrics that are not 0: \(nonZeroMetrics()); the worker's last log lines:\n\(logLines.last(20))")
        }
        return values.map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
    }

    /// Everything the worker wrote on `topic` within `duration` (which must pass: for checking that
    /// nothing more arrives), as JSON objects.
    func records(on topic: String, after duration: Duration) async throws -> [[String: Any]] {
        let pipeline = pipeline
        let values = try await DedicatedThread.run { () throws -> [[UInt8]] in
            let end = MonotonicClock.now + duration
            return try pipeline.outputs(timeout: duration + .seconds(30), waitingFor: "\(duration) to pass") { _ in MonotonicClock.now >= end }
                .filter { $0.topic == topic }.map(\.value)
        }
        return values.map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
    }

    /// Runs one command on the fixture's redis-server (planting or changing claims) and returns the reply.
    @discardableResult
    func redisCommand(_ arguments: [String]) async throws -> String? {
        try await DedicatedThread.run { [self] in try redisCommandOnThisThread(arguments) }
    }

    /// ``redisCommand(_:)`` on the calling thread, which must not be of the cooperative pool.
    func redisCommandOnThisThread(_ arguments: [String]) throws -> String? {
        let connection = try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port)))
        return try connection.send(RedisCommand(arguments[0], Array(arguments.dropFirst()))).string
    }

    /// The idempotency claim's key of a delivery (as `docs/pipeline-stores.md` documents it: the
    /// delivery's derived `apns-id`).
    static func claimKey(intent: String, token: DeviceToken) -> String {
        "pushline:claim:\(NotificationID.derived(intentID: intent, deviceToken: token))"
    }

    /// A worker metric's value, `pipeline` label first (the worker's default pipeline name).
    func counter(_ name: String, _ labels: [(String, String)] = []) throws -> Int64 {
        try registry.makeCounter(label: name, dimensions: [("pipeline", "default")] + labels).value
    }

    func gauge(_ name: String) throws -> Double {
        try registry.makeGauge(label: name, dimensions: [("pipeline", "default")]).value
    }

    /// Waits until `condition` holds, checking every 50 ms, on a thread of its own.
    func wait(for what: String, timeout: Duration = .seconds(30), until condition: @escaping @Sendable () throws -> Bool) async throws {
        try await DedicatedThread.run {
            try Deadline.wait(timeout, for: what) {
                if try condition() { return true }
                Thread.sleep(forTimeInterval: 0.05)
                return false
            }
        }
    }

    /// The offset `group` committed on the intents partition (the fixture's worker is of the group `worker`).
    func committedOffset(group: String = "worker") async throws -> Int64? {
        try await DedicatedThread.run { [self] in try committedOffsetOnThisThread(group: group) }
    }

    /// ``committedOffset(group:)`` on the calling thread, which must not be of the cooperative pool.
    func committedOffsetOnThisThread(group: String = "worker") throws -> Int64? {
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(bootstrapServers: pipeline.cluster.bootstrapServers,
                                                                                   groupID: group, topics: []))
        defer { try? consumer.close() }
        let partition = KafkaTopicPartition(topic: LocalPipeline.intentsTopic, partition: 0)
        return try consumer.committedOffsets(for: [partition], timeout: .seconds(10))[partition]
    }

    /// Stops the worker (draining) and everything else.
    func stop() async throws {
        let pipeline = pipeline
        try await DedicatedThread.run { try pipeline.stop() }
    }

    /// The worker's metrics whose value is not 0, on one line (`name{labels} value; …`), histogram
    /// buckets left out: where a wait that timed out stopped.
    private func nonZeroMetrics() -> String {
        registry.exposition.split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.hasSuffix(" 0") && !$0.contains("_bucket{") }
            .joined(separator: "; ")
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
            _ = try registry.apply(tokens.map { token in
                TokenRegistration(action: .register, app: Self.app, environment: .sandbox, user: user, token: token, occurredAt: 1_700_000_000_000)
            })
        }
    }

    static func token(_ index: Int) throws -> DeviceToken {
        try DeviceToken(String(format: "%064x", index + 1))
    }
}

/// The worker's log lines, kept in memory.
final class LogLines: LogLineWriter {
    private let lines = RecordLog<[UInt8]>()

    func write(line: [UInt8]) {
        lines.append(contentsOf: [line])
    }

    /// The last `count` lines, one a line (each written line ends in its newline).
    func last(_ count: Int) -> String {
        lines.all.suffix(count).map { String(decoding: $0, as: UTF8.self) }.joined()
    }

    /// Every line's `message` field, in order.
    var messages: [String] { objects.compactMap { $0["message"] as? String } }

    /// The lines whose `message` is `message`, as JSON objects, in order.
    func lines(_ message: String) -> [[String: Any]] { objects.filter { $0["message"] as? String == message } }

    private var objects: [[String: Any]] {
        lines.all.compactMap { line in (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] }
    }
}
