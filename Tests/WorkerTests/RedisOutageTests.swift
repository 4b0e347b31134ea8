import APNsCore
import Foundation
import PushlineTestKit
import Redis
import Testing

/// Redis stopped under the worker and started again on the same port (empty: the test server keeps
/// nothing on disk).
@Suite("Worker: Redis unreachable", .serialized)
struct RedisOutageTests {
    @Test("pause: nothing is sent while Redis is down, the partitions are paused and /readyz is not ready; afterwards everything is delivered once")
    func pauseAndRetry() async throws {
        let fixture = try await WorkerFixture()
        let tokens = try (50..<53).map(WorkerFixture.token)
        try await fixture.publish([WorkerFixture.intent(id: "before", tokens: [tokens[0]])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        #expect(fixture.pipeline.worker.isReady)

        let redis = fixture.redis
        try await DedicatedThread.run { redis.stop() }
        try await fixture.publish([WorkerFixture.intent(id: "during-1", tokens: [tokens[1], tokens[2]]),
                                   WorkerFixture.intent(id: "during-2", tokens: [tokens[0]])])
        try await fixture.wait(for: "the worker to pause for Redis") {
            try fixture.gauge("pushline_consumer_paused") == 1 && fixture.gauge("pushline_redis_available") == 0
        }
        #expect(!fixture.pipeline.worker.isReady)
        let whileDown = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        let inboxWhileDown = fixture.harness.simulator.inbox().count

        try await DedicatedThread.run { try redis.restart() }
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 4)
        try await fixture.wait(for: "the worker to resume") {
            try fixture.gauge("pushline_consumer_paused") == 0 && fixture.gauge("pushline_redis_available") == 1
        }
        let ready = fixture.pipeline.worker.isReady
        let settled = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(whileDown.count == 1 && inboxWhileDown == 1, "nothing sent or recorded while Redis was down")
        #expect(ready)
        #expect(outcomes.allSatisfy { $0["status"] as? String == "accepted" })
        #expect(settled.count == 4, "exactly one outcome per delivery")
        let deliveries = Set(settled.map { "\($0["intent_id"] ?? "")/\($0["token"] ?? "")" })
        #expect(deliveries == ["before/\(tokens[0].hex)", "during-1/\(tokens[1].hex)", "during-1/\(tokens[2].hex)", "during-2/\(tokens[0].hex)"])
        #expect(fixture.harness.simulator.inbox().count == 4)
        #expect(fixture.logLines.messages.contains("redis lost") && fixture.logLines.messages.contains("redis recovered"))
    }

    @Test("fail_open: token-addressed intents are sent without dedupe while Redis is down; a user's intent waits for the registry")
    func failOpen() async throws {
        let fixture = try await WorkerFixture { $0.redisUnreachable = .failOpen }
        let tokens = try (60..<62).map(WorkerFixture.token)
        let redis = fixture.redis
        try await DedicatedThread.run { redis.stop() }
        try await fixture.publish([WorkerFixture.intent(id: "open", tokens: tokens), WorkerFixture.intent(id: "for-user", user: "u-9")])
        let sent = try await fixture.records(on: "pushline.outcomes", count: 2)
        let whileDown = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        let skipped = try fixture.counter("pushline_dedupe_skipped_total")
        let paused = try fixture.gauge("pushline_consumer_paused")

        try await DedicatedThread.run { try redis.restart() }
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 3)
        try await fixture.stop()

        #expect(sent.allSatisfy { $0["intent_id"] as? String == "open" && $0["status"] as? String == "accepted" })
        #expect(whileDown.count == 2, "the user's intent waits for the registry")
        #expect(skipped == 2)
        #expect(paused == 0, "fail_open keeps consuming")
        // The restarted server is empty: the user has no devices now.
        let user = try #require(outcomes.first { $0["intent_id"] as? String == "for-user" })
        #expect(user["status"] as? String == "invalid" && user["reason"] as? String == "NoRegisteredDevices")
        #expect(fixture.harness.simulator.inbox().count == 2)
    }

    @Test("fail_open: the time to live is still checked while Redis is down (it needs no Redis): a passed expires_at is expired/TimeToLiveElapsed and not sent, a future one becomes apns-expiration")
    func failOpenChecksTimeToLive() async throws {
        let fixture = try await WorkerFixture { $0.redisUnreachable = .failOpen }
        let token = try WorkerFixture.token(63)
        let now = Int64(Date().timeIntervalSince1970)
        let redis = fixture.redis
        try await DedicatedThread.run { redis.stop() }
        try await fixture.publish([WorkerFixture.intent(id: "late", tokens: [token], extra: #""expires_at":\#(now - 1),"#),
                                   WorkerFixture.intent(id: "in-time", tokens: [token], extra: #""expires_at":\#(now + 600),"#)])
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        let inbox = fixture.harness.simulator.inbox()
        try await DedicatedThread.run { try redis.restart() }
        try await fixture.stop()

        #expect(outcomes.count == 2)
        let late = outcomes.filter { $0["intent_id"] as? String == "late" }
        #expect(late.count == 1 && late.first?["status"] as? String == "expired" && late.first?["reason"] as? String == "TimeToLiveElapsed")
        #expect(outcomes.count { $0["intent_id"] as? String == "in-time" && $0["status"] as? String == "accepted" } == 1)
        #expect(inbox.count == 1)
        #expect(inbox.first?.expiration == now + 600)
    }

    @Test("fail_open: a delivery claimed before Redis went down gets its outcome at once (counted); its claim is settled when Redis answers")
    func failOpenRecordsWithoutWaiting() async throws {
        let fixture = try await WorkerFixture { $0.redisUnreachable = .failOpen }
        let token = try WorkerFixture.token(63)
        let claimKey = WorkerFixture.claimKey(intent: "slow", token: token)
        // APNs answers after 6 s: Redis goes down between the claim and the record.
        var faults = fixture.harness.simulator.faults
        faults.latencyMilliseconds = 6000
        fixture.harness.simulator.setFaults(faults)
        try await fixture.publish([WorkerFixture.intent(id: "slow", tokens: [token])])
        try await fixture.wait(for: "the delivery's claim") {
            try fixture.redisCommandOnThisThread(["GET", claimKey])?.hasPrefix("pending") == true
        }
        let redis = fixture.redis
        try await DedicatedThread.run { redis.stop() }
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        let counted = try fixture.counter("pushline_outcomes_before_claims_total")

        try await DedicatedThread.run { try redis.restart() }
        try await fixture.wait(for: "the claim settled once Redis answers") {
            try fixture.redisCommandOnThisThread(["GET", claimKey])?.hasPrefix("sent ") == true
        }
        let afterwards = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        try await fixture.stop()

        #expect(outcomes.map { $0["status"] as? String } == ["accepted"])
        #expect(counted == 1)
        #expect(afterwards.count == 1, "one outcome: settling the claim later produces nothing more")
        #expect(fixture.harness.simulator.inbox().map(\.token) == [token.hex])
    }

    @Test("a worker started while Redis is down waits for it (paused, not ready), then delivers what came meanwhile")
    func redisDownAtStart() async throws {
        let redis = try await RedisServer.start()
        try await DedicatedThread.run { redis.stop() }
        let port = redis.port
        let fixture = try await WorkerFixture { $0.stores = .redis(RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port))) }
        try await fixture.wait(for: "the worker to wait for Redis") {
            try fixture.gauge("pushline_redis_available") == 0 && fixture.gauge("pushline_consumer_paused") == 1
        }
        let readyWhileDown = fixture.pipeline.worker.isReady
        let token = try WorkerFixture.token(65)
        try await fixture.publish([WorkerFixture.intent(id: "early", tokens: [token])])
        let whileDown = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))

        try await DedicatedThread.run { try redis.restart() }
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        try await fixture.stop()
        redis.stop()

        #expect(!readyWhileDown)
        #expect(whileDown.isEmpty, "nothing sent or recorded before Redis answered")
        #expect(outcomes.map { $0["status"] as? String } == ["accepted"])
        #expect(fixture.harness.simulator.inbox().map(\.token) == [token.hex])
    }
}
