import APNsCore
import Foundation
import Kafka
import PushlineTestKit
import Telemetry
import Testing
import Worker

/// A message read again after its deliveries were decided (a restart or a rebalance before the
/// commit) gets exactly the outcome that was decided if Kafka may not have it, and nothing if
/// Kafka has it; another message with the same intent id is a duplicate. The redelivery is made by
/// a second worker in a group of its own, which reads the partition from the start: what a worker
/// restarted before the first one's commit would read, at the same positions.
@Suite("Worker: redelivered messages", .serialized)
struct RedeliveryTests {
    /// The recorded watermark of the fixture's one intents partition (docs/pipeline-stores.md).
    static let recordedKey = "pushline:recorded:\(LocalPipeline.intentsTopic):0"

    /// Runs intents through the fixture's worker until they have `count` outcomes and their
    /// partition's recorded watermark is in Redis, then stops that worker; returns the outcomes as
    /// Kafka has them.
    private func decide(_ intents: [[UInt8]], outcomes count: Int, with fixture: WorkerFixture) async throws -> [String] {
        try await fixture.publish(intents)
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: count)
        try await fixture.wait(for: "the recorded watermark") {
            try fixture.redisCommandOnThisThread(["GET", Self.recordedKey]) == String(intents.count)
        }
        let worker = fixture.pipeline.worker
        try await DedicatedThread.run { try worker.stop() }
        return try await rawOutcomes(fixture, count: outcomes.count)
    }

    /// Every outcome on the topic so far (at least `count`), as text.
    private func rawOutcomes(_ fixture: WorkerFixture, count: Int) async throws -> [String] {
        let pipeline = fixture.pipeline
        return try await DedicatedThread.run {
            try pipeline.outputs(waitingFor: "\(count) outcomes") { $0.count { $0.topic == "pushline.outcomes" } >= count }
                .filter { $0.topic == "pushline.outcomes" }.map { String(decoding: $0.value, as: UTF8.self) }
        }
    }

    /// A second worker, in group `group`, on the fixture's Kafka, Redis and simulator, with its
    /// metrics in `registry`.
    private func replay(_ fixture: WorkerFixture, group: String, registry: MetricsRegistry) async throws -> Worker {
        let pipeline = fixture.pipeline
        var configuration = LocalPipeline.workerConfiguration(kafka: pipeline.cluster.bootstrapServers, redisPort: fixture.redis.port)
        configuration.consumer.groupID = group
        configuration.consumer.autoCommitInterval = .milliseconds(200)
        let worker = try Worker(configuration: configuration, catalog: LocalPipeline.catalogStore(), sender: pipeline.sender,
                                telemetry: WorkerTelemetry(registry: registry))
        worker.start()
        return worker
    }

    /// `pushline_redelivered_deliveries_total` of `decision`.
    private func redelivered(_ registry: MetricsRegistry, _ decision: String) throws -> Int64 {
        try registry.makeCounterFamily(name: "pushline_redelivered_deliveries_total", labelNames: ["pipeline", "decision"], help: "")
            .metric(labelValues: ["default", decision]).value
    }

    @Test("a redelivered message whose outcomes Kafka may not have gets the same outcomes again, byte for byte, and nothing is sent again")
    func unrecordedOutcomesAreEmittedAgain() async throws {
        let gone = try WorkerFixture.token(61)
        let fixture = try await WorkerFixture(unregistered: [(gone, 1_700_000_000_000)])
        let accepted = try WorkerFixture.token(60)
        let first = try await decide([WorkerFixture.intent(id: "again", tokens: [accepted, gone])], outcomes: 2, with: fixture)
        // As if the worker had died before its outcomes' acknowledgement reached the watermark.
        try await fixture.redisCommand(["DEL", Self.recordedKey])

        let registry = MetricsRegistry()
        let worker = try await replay(fixture, group: "replay", registry: registry)
        let all = try await rawOutcomes(fixture, count: 4)
        try await DedicatedThread.run { try worker.stop() }
        let afterwards = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(first.count == 2)
        #expect(Set(first.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["status"] as? String })
                == ["accepted", "rejected"])
        #expect(all.count == 4 && afterwards.count == 4, "one outcome again per delivery, no more")
        #expect(all.dropFirst(2).sorted() == first.sorted(), "the outcomes again are the ones decided, byte for byte")
        #expect(fixture.harness.simulator.inbox().map(\.token) == [accepted.hex], "nothing was sent again")
        #expect(try redelivered(registry, "reemitted") == 2 && redelivered(registry, "recorded") == 0)
    }

    @Test("a redelivered message whose outcomes Kafka has gets none, its offset still advances, and another message with its intent id is a DuplicateIntent")
    func recordedOutcomesAreNotEmittedAgain() async throws {
        let fixture = try await WorkerFixture()
        let token = try WorkerFixture.token(62)
        let intent = WorkerFixture.intent(id: "once", tokens: [token])
        let first = try await decide([intent], outcomes: 1, with: fixture)

        let registry = MetricsRegistry()
        let worker = try await replay(fixture, group: "replay", registry: registry)
        // A second message carrying the same intent, behind the redelivered one.
        try await fixture.publish([intent])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await DedicatedThread.run { try worker.stop() }
        let afterwards = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        let committed = try await fixture.committedOffset(group: "replay")
        try await fixture.stop()

        #expect(first.count == 1)
        #expect(afterwards.count == 2, "no outcome again for the recorded message")
        #expect(outcomes.map { $0["status"] as? String } == ["accepted", "suppressed"])
        #expect(outcomes.last?["reason"] as? String == "DuplicateIntent")
        #expect((outcomes.last?["source"] as? [String: Any])?["offset"] as? Int == 1)
        #expect(committed == 2, "the replaying group committed past both messages")
        #expect(fixture.harness.simulator.inbox().map(\.token) == [token.hex])
        #expect(try redelivered(registry, "recorded") == 1 && redelivered(registry, "reemitted") == 0)
    }
}
