import APNsCore
import Foundation
import Testing

/// A delivery whose claim another attempt holds (`pending`) is deferred, not skipped: it gets its
/// one outcome once that attempt settles or gives up the claim.
@Suite("Worker: deliveries behind another attempt's pending claim", .serialized)
struct PendingClaimTests {
    @Test("a pending claim defers its delivery until it is settled (→ suppressed) or released (→ sent); the others go at once")
    func deferredUntilSettledOrReleased() async throws {
        let fixture = try await WorkerFixture { $0.pendingRecheckInterval = .milliseconds(300) }
        let released = try WorkerFixture.token(40)
        let settled = try WorkerFixture.token(41)
        let free = try WorkerFixture.token(42)
        // Another attempt (a worker that died, or is still sending) holds two of the three claims.
        for token in [released, settled] {
            try await fixture.redisCommand(["SET", WorkerFixture.claimKey(intent: "held", token: token), "pending"])
        }
        try await fixture.publish([WorkerFixture.intent(id: "held", tokens: [released, settled, free])])
        let first = try await fixture.records(on: "pushline.outcomes", count: 1)
        let whileHeld = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))

        try await fixture.redisCommand(["DEL", WorkerFixture.claimKey(intent: "held", token: released)])
        try await fixture.redisCommand(["SET", WorkerFixture.claimKey(intent: "held", token: settled), "sent"])
        _ = try await fixture.records(on: "pushline.outcomes", count: 3)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        try await fixture.stop()

        #expect(first.map { $0["token"] as? String } == [free.hex])
        #expect(whileHeld.count == 1, "nothing for the held deliveries while the claims are pending")
        #expect(outcomes.count == 3, "exactly one outcome per delivery")
        let byToken = Dictionary(uniqueKeysWithValues: outcomes.map { ($0["token"] as? String ?? "", $0) })
        #expect(byToken[free.hex]?["status"] as? String == "accepted")
        #expect(byToken[released.hex]?["status"] as? String == "accepted")
        #expect(byToken[settled.hex]?["status"] as? String == "suppressed")
        #expect(byToken[settled.hex]?["reason"] as? String == "DuplicateIntent")
        #expect(Set(fixture.harness.simulator.inbox().compactMap(\.token)) == [free.hex, released.hex])
    }

    @Test("a pending claim that expires (its worker died) is claimed and sent: nothing is lost")
    func expiredClaimIsTakenOver() async throws {
        let fixture = try await WorkerFixture { $0.pendingRecheckInterval = .milliseconds(300) }
        let token = try WorkerFixture.token(43)
        try await fixture.redisCommand(["SET", WorkerFixture.claimKey(intent: "orphan", token: token), "pending", "PX", "1500"])
        try await fixture.publish([WorkerFixture.intent(id: "orphan", tokens: [token])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(outcomes.count == 1)
        #expect(outcomes.first?["status"] as? String == "accepted")
        #expect(fixture.harness.simulator.inbox().map(\.token) == [token.hex])
    }
}
