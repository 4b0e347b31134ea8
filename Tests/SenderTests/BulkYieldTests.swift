import APNsClient
import APNsSimulator
import Foundation
import Testing

/// Bulk sends yield to the others at the sender (docs/policies.md, "Bulk yields at the sender"),
/// against a simulator that stops answering after a first notification: what reaches it then is
/// what the pool put in flight.
@Suite("Bulk yields at the sender", .serialized, .timeLimit(.minutes(2)))
struct BulkYieldTests {
    /// Bulk keeps to 3 streams for an hour after a request above it; a stream left unanswered ends
    /// at the delivery's deadline (`max_hold` 500 ms).
    private static func fixture() throws -> SenderFixture {
        try SenderFixture(sender: { configuration in
            configuration.maximumHoldMilliseconds = 500
            configuration.bulkStreamsWhileAboveBulkSends = 3
            configuration.aboveBulkQuietMilliseconds = 3_600_000
        })
    }

    /// Sends one notification (`bulk` or not), answered — which lifts the connection's stream limit
    /// from the 1 of a new connection to the simulator's 1,000 — then stops the simulator answering.
    private static func sendOneThenStopAnswering(_ fixture: SenderFixture, bulk: Bool) async throws {
        let first = try await fixture.sender.send(SenderFixture.notifications(1, intent: "first"), pool: "dev", bulk: bulk)
        #expect(first.map(\.outcome) == [.accepted])
        var faults = fixture.harness.simulator.faults
        faults.neverRespondRate = 1
        fixture.harness.simulator.setFaults(faults)
    }

    @Test("after a request above bulk, bulk keeps to its streams; the rest of it waits in the pool")
    func bulkKeepsToItsStreams() async throws {
        let fixture = try Self.fixture()
        defer { fixture.stop() }
        try await Self.sendOneThenStopAnswering(fixture, bulk: false)
        let bulk = try await fixture.sender.send(SenderFixture.notifications(20, intent: "bulk"), pool: "dev", bulk: true)
        #expect(bulk.allSatisfy { $0.outcome == .expired })
        #expect(fixture.harness.simulator.stats().requests == 1 + 3)
    }

    @Test("a request above bulk goes ahead of the bulk waiting in the pool")
    func aboveBulkGoesFirst() async throws {
        let fixture = try Self.fixture()
        defer { fixture.stop() }
        try await Self.sendOneThenStopAnswering(fixture, bulk: false)
        let bulkNotifications = try SenderFixture.notifications(20, intent: "bulk")
        async let bulk = fixture.sender.send(bulkNotifications, pool: "dev", bulk: true)
        while fixture.harness.simulator.stats().requests < 1 + 3 { try await Task.sleep(for: .milliseconds(5)) }
        _ = try await fixture.sender.send(SenderFixture.notifications(1, intent: "transactional"), pool: "dev")
        #expect(fixture.harness.simulator.stats().requests == 1 + 3 + 1)
        _ = try await bulk
    }

    @Test("with nothing above it sending, bulk takes every stream it needs")
    func bulkAloneIsNotBounded() async throws {
        let fixture = try Self.fixture()
        defer { fixture.stop() }
        try await Self.sendOneThenStopAnswering(fixture, bulk: true)
        _ = try await fixture.sender.send(SenderFixture.notifications(20, intent: "bulk"), pool: "dev", bulk: true)
        #expect(fixture.harness.simulator.stats().requests == 1 + 20)
    }
}
