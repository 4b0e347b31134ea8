import Foundation
import PushlineTestKit
import Testing

/// A full producer queue is backpressure, not a wait on the worker's thread: records refused for it
/// are produced again after a back-off while the partitions are paused (mock Kafka, redis-server,
/// simulator).
@Suite("Producer backpressure", .serialized)
struct ProducerBackpressureTests {
    @Test("records refused because librdkafka's queue is full are produced again while the partitions pause: one outcome per delivery")
    func fullQueueRetried() async throws {
        // Room for one message, lingering 200 ms: every record produced while another waits finds the queue full.
        let fixture = try await WorkerFixture {
            $0.producer.linger = .milliseconds(200)
            $0.producer.additionalProperties["queue.buffering.max.messages"] = "1"
        }
        let tokens = try (0..<20).map { try WorkerFixture.token(40 + $0) }
        try await fixture.publish(tokens.enumerated().map { WorkerFixture.intent(id: "queued-\($0.offset)", tokens: [$0.element]) })
        _ = try await fixture.records(on: "pushline.outcomes", count: tokens.count)
        // Quiet for two seconds: whatever more would come has come.
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(2))
        try await fixture.wait(for: "the offset past every intent") { try fixture.committedOffsetOnThisThread() == Int64(tokens.count) }
        try await fixture.stop()

        let intentIDs = outcomes.compactMap { $0["intent_id"] as? String }.sorted()
        #expect(intentIDs == tokens.indices.map { "queued-\($0)" }.sorted(), "one outcome per delivery, none twice")
        #expect(outcomes.allSatisfy { $0["status"] as? String == "accepted" && $0["replaced"] == nil })
        #expect(try fixture.counter("pushline_outputs_retried_total", [("topic", "pushline.outcomes"), ("reason", "_QUEUE_FULL")]) >= 1)
        #expect(fixture.logLines.lines("partitions paused").contains { $0["reason"] as? String == "kafka_producer" })
        #expect(fixture.harness.simulator.inbox().map { $0.token ?? "none" }.sorted() == tokens.map(\.hex).sorted(), "each device notified once")
    }
}
