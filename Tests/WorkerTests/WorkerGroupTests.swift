import APNsCore
import Foundation
import Kafka
import PushlineTestKit
import Telemetry
import Testing
import Worker

/// Two workers in one consumer group on a topic of four partitions: the group splits the
/// partitions between them, and the deliveries are still each sent and recorded once.
@Suite("Worker: two workers in one group", .serialized)
struct WorkerGroupTests {
    /// What the run left behind, read back on the test's own thread.
    private struct Run: Sendable {
        let outcomes: [[UInt8]]
        let consumed: [Int64]
        let inbox: [String]
    }

    @Test("two workers in one group split the partitions; every intent gets exactly one accepted outcome and one notification")
    func twoWorkersSplitTheWork() async throws {
        let total = 400
        let run = try await DedicatedThread.run(timeout: .seconds(120)) { () throws -> Run in
            let cluster = try KafkaMockCluster(brokers: 1)
            try cluster.createTopic(LocalPipeline.intentsTopic, partitions: 4)
            for topic in LocalPipeline.outputTopics { try cluster.createTopic(topic, partitions: 1) }
            let redis = try RedisServer()
            let harness = try SimulatorHarness()
            let sender = try LocalPipeline.sender(port: harness.devicePort, caFile: harness.certificateFile)
            defer {
                sender.shutdown()
                harness.stop()
                redis.stop()
            }
            let registries = [MetricsRegistry(), MetricsRegistry()]
            let workers = try registries.map { registry in
                var configuration = LocalPipeline.workerConfiguration(kafka: cluster.bootstrapServers, redisPort: redis.port)
                configuration.consumer.sessionTimeout = .seconds(3)
                configuration.consumer.autoCommitInterval = .milliseconds(200)
                return try Worker(configuration: configuration, catalog: LocalPipeline.catalogStore(), sender: sender,
                                  telemetry: WorkerTelemetry(registry: registry))
            }
            for worker in workers { worker.start() }
            try Deadline.wait(.seconds(60), for: "both workers to join the group") {
                Thread.sleep(forTimeInterval: 0.05)
                return workers.allSatisfy(\.isReady)
            }
            try publish((0..<total).map { index in
                KafkaProducerMessage(topic: LocalPipeline.intentsTopic, partition: Int32(index % 4), value: Array("""
                    {"schema_version":1,"id":"group-\(index)","app":"\(LocalPipeline.app)","environment":"sandbox",\
                    "tokens":["\(String(format: "%064x", index + 1))"],"payload":{"aps":{"alert":"hello"}}}
                    """.utf8))
            }, servers: cluster.bootstrapServers)
            let outcomes = try read(total, from: "pushline.outcomes", servers: cluster.bootstrapServers)
            for worker in workers { try worker.stop() }
            let consumed = try registries.map { registry in
                try registry.makeCounter(label: "pushline_intents_consumed_total",
                                         dimensions: [("pipeline", "default"), ("topic", LocalPipeline.intentsTopic)]).value
            }
            return Run(outcomes: outcomes, consumed: consumed, inbox: harness.simulator.inbox().compactMap(\.token))
        }

        let outcomes = run.outcomes.map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
        #expect(outcomes.count == total, "exactly one outcome per delivery")
        #expect(outcomes.allSatisfy { $0["status"] as? String == "accepted" })
        #expect(Set(outcomes.compactMap { $0["intent_id"] as? String }) == Set((0..<total).map { "group-\($0)" }))
        #expect(run.consumed.allSatisfy { $0 > 0 }, "both workers took intents: \(run.consumed)")
        #expect(run.inbox.count == total && Set(run.inbox).count == total, "each notification once")
    }
}

/// Publishes the messages and waits until Kafka has them all.
private func publish(_ messages: [KafkaProducerMessage], servers: String) throws {
    let reports = RecordLog<KafkaDeliveryReport>()
    let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: servers)) { event in
        if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
    }
    _ = try producer.send(messages)
    try Deadline.wait(for: "\(messages.count) intents published") { reports.all.count == messages.count }
    try producer.close()
}

/// Reads `count` records of `topic` from its beginning, then half a second more (anything beyond
/// `count` would be an extra outcome).
private func read(_ count: Int, from topic: String, servers: String) throws -> [[UInt8]] {
    let reader = try KafkaConsumer(configuration: KafkaConsumerConfiguration(bootstrapServers: servers, groupID: "group-test-reader",
                                                                             topics: [topic]))
    defer { try? reader.close() }
    var values: [[UInt8]] = []
    let deadline = Deadline(after: .seconds(60))
    while values.count < count {
        try deadline.check(waitingFor: "\(count) records on \(topic)")
        values += reader.poll(maxMessages: 500, timeout: .milliseconds(100)).map { $0.value ?? [] }
    }
    let settle = MonotonicClock.now + .milliseconds(500)
    while MonotonicClock.now < settle {
        values += reader.poll(maxMessages: 500, timeout: .milliseconds(100)).map { $0.value ?? [] }
    }
    return values
}
