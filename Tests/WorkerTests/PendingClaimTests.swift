import APNsCore
import Foundation
import Runtime
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

    @Test("a claim a dead worker left pending (its liveness key gone) is taken over at once and sent once under resend")
    func deadOwnersClaimIsResent() async throws {
        let fixture = try await WorkerFixture { $0.pendingRecheckInterval = .milliseconds(300) }
        let token = try WorkerFixture.token(44)
        // Pending for a minute: only the owner's death, not the claim's TTL, lets it go.
        try await fixture.redisCommand(["SET", WorkerFixture.claimKey(intent: "crashed", token: token), "pending dead-worker", "PX", "60000"])
        try await fixture.publish([WorkerFixture.intent(id: "crashed", tokens: [token])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        let resent = try fixture.counter("pushline_uncertain_deliveries_total", [("decision", "resent")])
        try await fixture.stop()

        #expect(outcomes.map { $0["status"] as? String } == ["accepted"])
        #expect(fixture.harness.simulator.inbox().map(\.token) == [token.hex])
        #expect(resent == 1)
    }

    @Test("under on_uncertain skip, a claim a dead worker left pending gets the outcome unknown/UncertainAfterCrash and nothing is sent")
    func deadOwnersClaimIsSkipped() async throws {
        let fixture = try await WorkerFixture {
            $0.pendingRecheckInterval = .milliseconds(300)
            $0.onUncertain = .skip
        }
        let uncertain = try WorkerFixture.token(45)
        let fresh = try WorkerFixture.token(46)
        try await fixture.redisCommand(["SET", WorkerFixture.claimKey(intent: "crashed", token: uncertain), "pending dead-worker", "PX", "60000"])
        try await fixture.publish([WorkerFixture.intent(id: "crashed", tokens: [uncertain, fresh])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        let claim = try await fixture.redisCommand(["GET", WorkerFixture.claimKey(intent: "crashed", token: uncertain)])
        let skipped = try fixture.counter("pushline_uncertain_deliveries_total", [("decision", "skipped")])
        try await fixture.stop()

        #expect(outcomes.count == 2, "one outcome per delivery")
        let byToken = Dictionary(outcomes.map { ($0["token"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byToken[uncertain.hex]?["status"] as? String == "unknown")
        #expect(byToken[uncertain.hex]?["reason"] as? String == "UncertainAfterCrash")
        #expect(byToken[fresh.hex]?["status"] as? String == "accepted")
        #expect(fixture.harness.simulator.inbox().map(\.token) == [fresh.hex], "the uncertain delivery is not sent again")
        #expect(claim?.hasPrefix("failed") == true, "settled, so a redelivery does not send it either")
        #expect(skipped == 1)
    }

    @Test("a claim whose owner still lives is deferred, and taken over once the owner's liveness key expires")
    func liveOwnersClaimWaitsForItsDeath() async throws {
        let fixture = try await WorkerFixture { $0.pendingRecheckInterval = .milliseconds(300) }
        let token = try WorkerFixture.token(47)
        try await fixture.redisCommand(["SET", WorkerFixture.claimKey(intent: "busy", token: token), "pending live-worker", "PX", "60000"])
        // Alive until the test lets the key expire, however long the second below takes.
        try await fixture.redisCommand(["SET", "pushline:owner:live-worker", "alive"])
        try await fixture.publish([WorkerFixture.intent(id: "busy", tokens: [token])])
        let whileAlive = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        try await fixture.redisCommand(["PEXPIRE", "pushline:owner:live-worker", "500"])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        try await fixture.stop()

        #expect(whileAlive.isEmpty, "nothing while its owner lives")
        #expect(outcomes.map { $0["status"] as? String } == ["accepted"])
        #expect(fixture.harness.simulator.inbox().map(\.token) == [token.hex])
    }

    @Test("a claim whose delivery APNs holds longer than the pending TTL is renewed by its live worker, not left to expire")
    func heldClaimIsRenewed() async throws {
        let fixture = try await WorkerFixture { $0.idempotency.pendingMilliseconds = 1000 }
        var faults = fixture.harness.simulator.faults
        // Long enough that the claim is read below while APNs still holds the request, however
        // late the test's task resumes.
        faults.latencyMilliseconds = 6000
        fixture.harness.simulator.setFaults(faults)
        let token = try WorkerFixture.token(48)
        let key = WorkerFixture.claimKey(intent: "slow", token: token)
        try await fixture.publish([WorkerFixture.intent(id: "slow", tokens: [token])])
        try await fixture.wait(for: "the claim") { try fixture.redisCommandOnThisThread(["GET", key]) != nil }
        // Twice the pending TTL later, with APNs still holding the request.
        try await Task.sleep(for: .seconds(2))
        let whileHeld = try await fixture.redisCommand(["GET", key])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        try await fixture.stop()

        #expect(whileHeld?.hasPrefix("pending ") == true, "still this worker's pending claim: \(whileHeld ?? "none")")
        #expect(outcomes.map { $0["status"] as? String } == ["accepted"])
    }

    @Test("a deferred delivery is claimed again when the worker's clock reaches its recheck time, not before")
    func recheckFollowsTheWorkersClock() async throws {
        let time = TestClock()
        let fixture = try await WorkerFixture {
            $0.clock = time.clock
            // A batch closes when full: the linger would never pass on a clock that stands still.
            $0.batchSize = 1
        }
        let token = try WorkerFixture.token(49)
        let key = WorkerFixture.claimKey(intent: "timed", token: token)
        try await fixture.redisCommand(["SET", key, "pending"])
        try await fixture.publish([WorkerFixture.intent(id: "timed", tokens: [token])])
        let whilePending = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        try await fixture.redisCommand(["SET", key, "sent"])
        // Longer than the recheck interval (1 s) in real time; the worker's clock has not moved.
        let beforeTheClockMoves = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(1500))
        time.advance(by: .seconds(1))
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        try await fixture.stop()

        #expect(whilePending.isEmpty)
        #expect(beforeTheClockMoves.isEmpty, "the recheck waits for the worker's clock")
        #expect(outcomes.map { $0["status"] as? String } == ["suppressed"])
        #expect(fixture.harness.simulator.inbox().isEmpty)
    }
}
