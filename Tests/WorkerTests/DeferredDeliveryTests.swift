import APNsCore
import Foundation
import Pipeline
import PushlineConfiguration
import PushlineTestKit
import Redis
import Runtime
import Telemetry
import Testing
import Worker

/// Quiet hours end to end (docs/policies.md §2): mock Kafka, a real redis-server, the in-process
/// APNs simulator, and a wall clock the test moves, so the night ends in a moment. The window is
/// 22:00–08:00 UTC; the clock starts at 23:00.
@Suite("Quiet hours: deferred and released", .serialized)
struct DeferredDeliveryTests {
    /// 2026-12-01 23:00 UTC and the window's end, 2026-12-02 08:00 UTC (Unix ms).
    static let lateEvening: Int64 = 1_796_166_000_000
    static let windowEnd: Int64 = 1_796_198_400_000

    /// The worker's changes: the test's wall clock, the window, a release every 100 ms.
    private static func configure(_ clock: TestClock) -> @Sendable (inout WorkerConfiguration) -> Void {
        { configuration in
            configuration.wallClock = clock.wallClock
            var window = QuietHoursConfiguration(start: TimeOfDay("22:00")!, end: TimeOfDay("08:00")!)
            window.releaseInterval = .milliseconds(100)
            configuration.policies.quietHours = window
        }
    }

    private static func count(_ outcomes: [[String: Any]], _ status: String, intent: String? = nil) -> Int {
        outcomes.count { $0["status"] as? String == status && (intent == nil || $0["intent_id"] as? String == intent) }
    }

    /// The deferred store's entries, over every shard.
    private static func kept(_ fixture: WorkerFixture) async throws -> Int {
        let port = fixture.redis.port
        return try await DedicatedThread.run {
            try DeferredStore(connection: try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port))),
                              pipeline: "default").count()
        }
    }

    @Test("inside quiet hours: deferred (QuietHours, release_at the window's end), released when it ends, in the inbox once: deferred then accepted; a second release record of it decides nothing")
    func deferredThenReleased() async throws {
        let clock = TestClock(start: UInt64(Self.lateEvening) * 1_000_000)
        let fixture = try await WorkerFixture(configure: Self.configure(clock))
        let token = try WorkerFixture.token(40)
        let intent = WorkerFixture.intent(id: "night", tokens: [token])
        try await fixture.publish([intent])
        let deferred = try await fixture.records(on: "pushline.outcomes", count: 1)
        let inboxAtNight = fixture.harness.simulator.inbox().count
        let keptAtNight = try await Self.kept(fixture)

        clock.advance(by: .seconds(9 * 3_600))
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        // A second release record of the same entry (its lease ended before it was completed), of
        // version 1 as a worker wrote it before 2026-12-05: read too, and deciding nothing.
        try await fixture.publish([Array("pushline-release 1 \(token.hex) - -\n".utf8) + intent])
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(2))
        let keptAfter = try await Self.kept(fixture)
        let released = try fixture.counter("pushline_deferred_released_total")
        try await fixture.stop()

        #expect(deferred.first?["status"] as? String == "deferred")
        #expect(deferred.first?["reason"] as? String == "QuietHours")
        #expect((deferred.first?["release_at"] as? NSNumber)?.int64Value == Self.windowEnd)
        #expect(inboxAtNight == 0)
        #expect(keptAtNight == 1)
        #expect(outcomes.count == 2, "one deferred and one final outcome, nothing for the second release record")
        #expect(Self.count(outcomes, "deferred", intent: "night") == 1)
        #expect(Self.count(outcomes, "accepted", intent: "night") == 1)
        #expect(outcomes.last?["status"] as? String == "accepted")
        #expect(fixture.harness.simulator.inbox().count { $0.token == token.hex } == 1)
        #expect(keptAfter == 0, "the entry is completed once its release record is in Kafka")
        #expect(released == 1)
        #expect(try fixture.counter("pushline_deliveries_total", [("status", "deferred"), ("reason", "QuietHours")]) == 1)
    }

    @Test("outside quiet hours, and with respect_quiet_hours false: sent at once, nothing kept")
    func outsideTheWindow() async throws {
        let clock = TestClock(start: UInt64(Self.windowEnd + 3_600_000) * 1_000_000)
        let fixture = try await WorkerFixture(configure: Self.configure(clock))
        let token = try WorkerFixture.token(41)
        try await fixture.publish([WorkerFixture.intent(id: "day", tokens: [token])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        clock.advance(by: .seconds(12 * 3_600))
        try await fixture.publish([WorkerFixture.intent(id: "urgent", tokens: [token], extra: #""respect_quiet_hours":false,"#)])
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        // Quiet for a second more: counted then.
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        let kept = try await Self.kept(fixture)
        try await fixture.stop()

        #expect(outcomes.count == 2)
        #expect(Self.count(outcomes, "accepted") == 2)
        #expect(fixture.harness.simulator.inbox().count == 2)
        #expect(kept == 0)
    }

    @Test("a delivery whose time to live ends before the window: deferred, then expired/TimeToLiveElapsed at its release, never in the inbox")
    func timeToLiveEndsFirst() async throws {
        let clock = TestClock(start: UInt64(Self.lateEvening) * 1_000_000)
        let fixture = try await WorkerFixture(configure: Self.configure(clock))
        let token = try WorkerFixture.token(42)
        try await fixture.publish([WorkerFixture.intent(id: "short", tokens: [token], extra: #""expires_at":\#(Self.lateEvening / 1000 + 3_600),"#)])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        clock.advance(by: .seconds(9 * 3_600))
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        try await fixture.stop()

        #expect(outcomes.count == 2)
        #expect(Self.count(outcomes, "deferred") == 1)
        #expect(outcomes.last?["status"] as? String == "expired")
        #expect(outcomes.last?["reason"] as? String == "TimeToLiveElapsed")
        #expect(fixture.harness.simulator.inbox().isEmpty)
    }

    @Test("entries in the deferred store that hold no release record (not written by a worker; one of them an intent a backend could have sent) are not released: each reported with its reason and counted, again when its lease ends; left in the store; no outcome, no dead letter, nothing sent")
    func foreignEntriesReportedNotReleased() async throws {
        let clock = TestClock(start: UInt64(Self.lateEvening) * 1_000_000)
        let fixture = try await WorkerFixture(configure: { configuration in
            Self.configure(clock)(&configuration)
            configuration.deferredStore = DeferredStore.Configuration(shards: 1)
        })
        let port = fixture.redis.port
        let intent = WorkerFixture.intent(id: "foreign-intent", tokens: [try WorkerFixture.token(46)])
        let written = try await DedicatedThread.run {
            let connection = try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port)))
            return try connection.pipeline([
                RedisCommand("HSET", "pushline:deferred:{default:0}:entries", "not-an-entry", "not an entry"),
                RedisCommand("HSET", ["pushline:deferred:{default:0}:entries", "an-intent", "0 " + String(decoding: intent, as: UTF8.self)]),
                RedisCommand("ZADD", "pushline:deferred:{default:0}", "0", "not-an-entry", "0", "an-intent"),
            ]).map(\.integer)
        }
        try await fixture.wait(for: "both entries reported") { try fixture.counter("pushline_deferred_unreadable_total") >= 2 }
        // Quiet for a second: whatever more would come has come.
        _ = try await fixture.records(on: "pushline.outcomes", after: .seconds(1))
        let reported = fixture.logLines.lines("deferred entry holds no release record; left in the store")
        let unreadable = try fixture.counter("pushline_deferred_unreadable_total")
        clock.advance(by: .seconds(61))
        try await fixture.wait(for: "both entries reported again after their lease") { try fixture.counter("pushline_deferred_unreadable_total") >= 4 }
        let letters = try await fixture.records(on: "pushline.dlq", after: .seconds(1))
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .zero)
        let unreadableAfterLease = try fixture.counter("pushline_deferred_unreadable_total")
        let released = try fixture.counter("pushline_deferred_released_total")
        let kept = try await DedicatedThread.run {
            try DeferredStore(connection: try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port))),
                              pipeline: "default", configuration: DeferredStore.Configuration(shards: 1)).count()
        }
        try await fixture.stop()

        #expect(written == [1, 1, 2], "both values and their ids were written")
        #expect(reported.count == 2, "each reported once: both are leased for 60 s after it")
        #expect(reported.allSatisfy { $0["reason"] as? String == "UnreadableDeferredEntry" })
        #expect(reported.compactMap { $0["entry"] as? String }.sorted() == ["an-intent", "not-an-entry"])
        #expect(unreadable == 2)
        #expect(unreadableAfterLease == 4, "reported again once their lease ended, once each")
        #expect(released == 0)
        #expect(kept == 2, "left in the store")
        #expect(outcomes.isEmpty)
        #expect(letters.isEmpty)
        #expect(fixture.harness.simulator.inbox().isEmpty)
    }

    @Test("a worker restarted while deliveries are deferred releases them: each in the inbox once, deferred then accepted")
    func releasedAfterRestart() async throws {
        let clock = TestClock(start: UInt64(Self.lateEvening) * 1_000_000)
        let fixture = try await WorkerFixture(configure: Self.configure(clock))
        let tokens = try (43...45).map(WorkerFixture.token)
        try await fixture.publish(tokens.enumerated().map { WorkerFixture.intent(id: "night-\($0.offset)", tokens: [$0.element]) })
        _ = try await fixture.records(on: "pushline.outcomes", count: 3)
        let first = fixture.pipeline.worker
        try await DedicatedThread.run { try first.stop() }

        // The same group, stores and clock: what `pushline run` started again would be.
        let pipeline = fixture.pipeline
        var configuration = LocalPipeline.workerConfiguration(kafka: pipeline.cluster.bootstrapServers, redisPort: fixture.redis.port)
        configuration.consumer.sessionTimeout = .seconds(3)
        configuration.consumer.autoCommitInterval = .milliseconds(200)
        Self.configure(clock)(&configuration)
        let restarted = try Worker(configuration: configuration, catalog: LocalPipeline.catalogStore(), sender: pipeline.sender,
                                   telemetry: WorkerTelemetry(registry: MetricsRegistry()))
        restarted.start()
        clock.advance(by: .seconds(9 * 3_600))
        _ = try await fixture.records(on: "pushline.outcomes", count: 6)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(2))
        try await DedicatedThread.run { try restarted.stop() }
        let kept = try await Self.kept(fixture)
        try await fixture.stop()

        #expect(outcomes.count == 6)
        #expect(Self.count(outcomes, "deferred") == 3)
        #expect(Self.count(outcomes, "accepted") == 3)
        for (index, token) in tokens.enumerated() {
            #expect(Self.count(outcomes, "accepted", intent: "night-\(index)") == 1)
            #expect(fixture.harness.simulator.inbox().count { $0.token == token.hex } == 1)
        }
        #expect(kept == 0)
    }
}
