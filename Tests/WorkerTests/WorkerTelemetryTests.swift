import APNsCore
import Foundation
import Kafka
import PushlineTestKit
import Testing

/// The worker's metrics (read from its registry) and log lines, and its bounds: `max_in_flight`
/// and the shutdown deadline.
@Suite("Worker: metrics, saturation and shutdown", .serialized)
struct WorkerTelemetryTests {
    @Test("metrics count intents, outcomes by status and reason, dead letters, token events and suppressions, and end at zero in flight")
    func metricsCountWhatHappened() async throws {
        let gone = try WorkerFixture.token(70)
        let fixture = try await WorkerFixture(unregistered: [(token: gone, at: 1_767_225_600_000)])
        let tokens = try (71..<73).map(WorkerFixture.token)
        let intent = WorkerFixture.intent(id: "m-1", tokens: tokens)
        try await fixture.publish([intent, Array(#"{"broken"#.utf8), WorkerFixture.intent(id: "m-2", tokens: [gone])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 4)
        try await fixture.publish([intent])
        _ = try await fixture.records(on: "pushline.outcomes", count: 6)
        try await fixture.wait(for: "nothing in flight") { try fixture.gauge("pushline_inflight_deliveries") == 0 }
        try await fixture.stop()

        #expect(try fixture.counter("pushline_intents_consumed_total", [("topic", "pushline.intents")]) == 4)
        #expect(try fixture.counter("pushline_deliveries_total", [("status", "accepted"), ("reason", "none")]) == 2)
        #expect(try fixture.counter("pushline_deliveries_total", [("status", "rejected"), ("reason", "Unregistered")]) == 1)
        #expect(try fixture.counter("pushline_deliveries_total", [("status", "invalid"), ("reason", "MalformedJSON")]) == 1)
        #expect(try fixture.counter("pushline_deliveries_total", [("status", "suppressed"), ("reason", "DuplicateIntent")]) == 2)
        #expect(try fixture.counter("pushline_suppressed_total", [("kind", "duplicate_intent")]) == 2)
        #expect(try fixture.counter("pushline_dead_letters_total", [("reason", "MalformedJSON")]) == 1)
        #expect(try fixture.counter("pushline_token_events_total", [("kind", "unregistered")]) == 1)
        let latency = try fixture.registry.makeHistogram(label: "pushline_end_to_end_latency_seconds", dimensions: [("pipeline", "default")],
                                                         buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])
        #expect(latency.count == 5, "one observation per delivery's outcome")
        let batches = try fixture.registry.makeHistogram(label: "pushline_batch_deliveries", dimensions: [("pipeline", "default")],
                                                         buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000])
        #expect(batches.sum == 3, "three deliveries were handed to the sender")
        #expect(try fixture.gauge("pushline_redis_available") == 1)
        let messages = fixture.logLines.messages
        #expect(messages.first == "worker started")
        #expect(messages.contains("partitions assigned"))
        #expect(messages.last == "worker stopped")
    }

    @Test("at max_in_flight the worker pauses its partitions and resumes below it; every intent is still delivered once")
    func pausesAtMaximumInFlight() async throws {
        let fixture = try await WorkerFixture {
            $0.maximumInFlight = 2
            $0.batchSize = 2
        }
        let tokens = try (80..<92).map(WorkerFixture.token)
        try await fixture.publish(tokens.enumerated().map { WorkerFixture.intent(id: "sat-\($0.offset)", tokens: [$0.element]) })
        _ = try await fixture.records(on: "pushline.outcomes", count: tokens.count)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(outcomes.count == tokens.count)
        #expect(outcomes.allSatisfy { $0["status"] as? String == "accepted" })
        #expect(fixture.harness.simulator.inbox().count == tokens.count)
        let messages = fixture.logLines.messages
        #expect(messages.contains("partitions paused") && messages.contains("partitions resumed"))
    }

    @Test("stop returns at the shutdown deadline although a delivery is still deferred, and commits only up to it")
    func shutdownDeadline() async throws {
        let fixture = try await WorkerFixture {
            $0.shutdownDeadline = .seconds(1)
            $0.pendingRecheckInterval = .milliseconds(200)
        }
        let token = try WorkerFixture.token(95)
        try await fixture.redisCommand(["SET", WorkerFixture.claimKey(intent: "stuck", token: token), "pending"])
        try await fixture.publish([WorkerFixture.intent(id: "done", tokens: [try WorkerFixture.token(96)]),
                                   WorkerFixture.intent(id: "stuck", tokens: [token])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        let pipeline = fixture.pipeline
        // Without the deadline this would wait for the claim forever (and DedicatedThread would fail the test).
        try await DedicatedThread.run { try pipeline.worker.stop() }
        let committed = try await DedicatedThread.run { () throws -> [KafkaTopicPartition: Int64] in
            let reader = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
                bootstrapServers: pipeline.cluster.bootstrapServers, groupID: "worker", topics: []))
            defer { try? reader.close() }
            return try reader.committedOffsets(for: [KafkaTopicPartition(topic: LocalPipeline.intentsTopic, partition: 0)], timeout: .seconds(10))
        }
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(300))
        try await fixture.stop()

        #expect(committed[KafkaTopicPartition(topic: LocalPipeline.intentsTopic, partition: 0)] == 1, "committed up to the unfinished message")
        #expect(outcomes.count == 1)
        #expect(fixture.logLines.messages.contains("handing back unfinished work"))
    }
}
