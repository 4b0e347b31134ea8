import APNsCore
import Foundation
import Pipeline
import PushlineConfiguration
import Runtime
import Testing
import Worker

/// The delivery policies (docs/policies.md) in the worker: mock Kafka, real redis-server, in-process
/// APNs simulator, and a wall clock the test moves, so windows of an hour pass at once.
@Suite("Delivery policies", .serialized)
struct DeliveryPolicyTests {
    /// Now, in nanoseconds since the epoch: the sender and the simulator read the system's clock
    /// (an `apns-expiration` in their past is expired there), so the test's clock starts with it.
    private static let start = UInt64(WallClock.system.nanosecondsSinceEpoch())

    private static func fixture(_ clock: TestClock, policies configure: @escaping @Sendable (inout DeliveryPolicies) -> Void = { _ in })
        async throws -> WorkerFixture {
        try await WorkerFixture(configure: { configuration in
            configuration.wallClock = clock.wallClock
            configure(&configuration.policies)
        })
    }

    /// An intent of the example app's template `template` for `token` (sandbox); `extra` adds top-level fields (`"k":v,`).
    private static func intent(_ id: String, template: String, token: DeviceToken, args: String = "{}", extra: String = "") -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"\(id)","app":"\(WorkerFixture.app)","environment":"sandbox","tokens":["\(token.hex)"],\(extra)
             "template":"\(template)","args":\(args)}
            """.utf8)
    }

    private static func count(_ outcomes: [[String: Any]], _ status: String, _ reason: String? = nil) -> Int {
        outcomes.count { $0["status"] as? String == status && (reason == nil || $0["reason"] as? String == reason) }
    }

    @Test("expires_at in the past: expired/TimeToLiveElapsed and not sent; in the future: sent with it as apns-expiration")
    func timeToLive() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock)
        let now = Int64(Self.start / 1_000_000_000)
        let token = try WorkerFixture.token(1)
        try await fixture.publish([WorkerFixture.intent(id: "late", tokens: [token], extra: #""expires_at":\#(now - 1),"#),
                                   WorkerFixture.intent(id: "in-time", tokens: [token], extra: #""expires_at":\#(now + 600),"#)])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await fixture.stop()

        let late = outcomes.first { $0["intent_id"] as? String == "late" }
        #expect(late?["status"] as? String == "expired")
        #expect(late?["reason"] as? String == "TimeToLiveElapsed")
        #expect(outcomes.first { $0["intent_id"] as? String == "in-time" }?["status"] as? String == "accepted")
        let inbox = fixture.harness.simulator.inbox()
        #expect(inbox.count == 1)
        #expect(inbox.first?.expiration == now + 600)
    }

    @Test("the pipeline's ttl.default counts from created_at: an intent older than it expires")
    func defaultTimeToLive() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock) { $0.timeToLive.fallback = .seconds(3_600) }
        let nowMilliseconds = Int64(Self.start / 1_000_000)
        let token = try WorkerFixture.token(2)
        try await fixture.publish([WorkerFixture.intent(id: "old", tokens: [token], extra: #""created_at":\#(nowMilliseconds - 7_200_000),"#),
                                   WorkerFixture.intent(id: "fresh", tokens: [token], extra: #""created_at":\#(nowMilliseconds - 60_000),"#)])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await fixture.stop()

        #expect(outcomes.first { $0["intent_id"] as? String == "old" }?["status"] as? String == "expired")
        #expect(outcomes.first { $0["intent_id"] as? String == "fresh" }?["status"] as? String == "accepted")
        #expect(fixture.harness.simulator.inbox().first?.expiration == (nowMilliseconds - 60_000) / 1000 + 3_600)
    }

    @Test("frequency caps: 2 marketing per hour per device; the third is FrequencyCapped, transactional is exempt, an hour later there is room")
    func frequencyCaps() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock) {
            $0.frequencyCaps.rules = [.init(category: "marketing", limit: .init(limit: 2, window: .seconds(3_600))),
                                      .init(category: nil, limit: .init(limit: 1, window: .seconds(3_600)))]
        }
        let token = try WorkerFixture.token(3)
        let marketing = #""policy_category":"marketing","#
        try await fixture.publish((1...3).map { WorkerFixture.intent(id: "m-\($0)", tokens: [token], extra: marketing) }
            + (1...2).map { WorkerFixture.intent(id: "t-\($0)", tokens: [token], extra: #""policy_category":"transactional","#) })
        let first = try await fixture.records(on: "pushline.outcomes", count: 5)
        clock.advance(by: .seconds(3_601))
        try await fixture.publish([WorkerFixture.intent(id: "m-4", tokens: [token], extra: marketing)])
        let all = try await fixture.records(on: "pushline.outcomes", count: 6)
        try await fixture.stop()

        #expect(Self.count(first.filter { ($0["intent_id"] as? String)?.hasPrefix("m-") == true }, "accepted") == 2)
        #expect(Self.count(first, "suppressed", "FrequencyCapped") == 1)
        #expect(Self.count(first.filter { ($0["intent_id"] as? String)?.hasPrefix("t-") == true }, "accepted") == 2)
        #expect(all.last?["intent_id"] as? String == "m-4")
        #expect(all.last?["status"] as? String == "accepted")
        #expect(fixture.harness.simulator.inbox().count == 5)
        #expect(try fixture.counter("pushline_suppressed_total", [("kind", "frequency_capped")]) == 1)
        #expect(try fixture.counter("pushline_interruption_level_deliveries_total", [("app", WorkerFixture.app), ("level", "active")]) == 5)
    }

    @Test("a category no rule names is held to the rules without a category: the second news within the hour is FrequencyCapped")
    func frequencyCapsOfAnUnnamedCategory() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock) {
            $0.frequencyCaps.rules = [.init(category: "marketing", limit: .init(limit: 5, window: .seconds(3_600))),
                                      .init(category: nil, limit: .init(limit: 1, window: .seconds(3_600)))]
        }
        let token = try WorkerFixture.token(4)
        try await fixture.publish((1...2).map { WorkerFixture.intent(id: "n-\($0)", tokens: [token], extra: #""policy_category":"news","#) })
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await fixture.stop()

        #expect(Self.count(outcomes, "accepted") == 1)
        #expect(Self.count(outcomes, "suppressed", "FrequencyCapped") == 1)
        #expect(fixture.harness.simulator.inbox().count == 1)
    }

    @Test("frequency caps count per user across the user's devices")
    func frequencyCapsPerUser() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock) {
            $0.frequencyCaps.rules = [.init(category: "marketing", limit: .init(limit: 1, window: .seconds(86_400)))]
        }
        let tokens = try (4...5).map(WorkerFixture.token)
        try await fixture.register(tokens, user: "ada")
        let intent = { (id: String) in
            Array(#"{"schema_version":1,"id":"\#(id)","app":"\#(WorkerFixture.app)","environment":"sandbox","user":"ada","policy_category":"marketing","payload":{"aps":{"alert":"sale"}}}"#.utf8)
        }
        try await fixture.publish([intent("u-1")])
        let first = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await fixture.publish([intent("u-2")])
        let all = try await fixture.records(on: "pushline.outcomes", count: 4)
        try await fixture.stop()

        // The first intent's two devices: one fits the user's cap of 1, the other is over it.
        #expect(Self.count(first, "accepted") == 1)
        #expect(Self.count(first, "suppressed", "FrequencyCapped") == 1)
        #expect(Self.count(Array(all.suffix(2)), "suppressed", "FrequencyCapped") == 2)
        #expect(fixture.harness.simulator.inbox().count == 1)
    }

    @Test("background pushes, 3 per device per hour by default: of 5 in one window 3 are sent, the 4th deferred then suppressed (replaced by the 5th), the 5th deferred then sent once after the window")
    func backgroundBudgetCoalesces() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock)
        let token = try WorkerFixture.token(6)
        let other = try WorkerFixture.token(7)
        let push = { (id: String, token: DeviceToken) in Self.intent(id, template: "background_sync", token: token, args: #"{"scope":"inbox"}"#) }
        // One at a time, so the order (which is newest) is the test's.
        var expected = 0
        for (id, to) in (1...5).map({ ("bg-\($0)", token) }) + [("bg-other", other)] {
            try await fixture.publish([push(id, to)])
            expected += id == "bg-5" ? 2 : 1  // the 5th also ends the 4th
            _ = try await fixture.records(on: "pushline.outcomes", count: expected)
        }
        let beforeWindow = try await fixture.records(on: "pushline.outcomes", after: .seconds(2))
        let inboxBefore = fixture.harness.simulator.inbox().count { $0.token == token.hex }
        clock.advance(by: .seconds(3_600))
        _ = try await fixture.records(on: "pushline.outcomes", count: expected + 1)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(2))
        try await fixture.stop()

        let statuses = { (id: String) in outcomes.filter { $0["intent_id"] as? String == id }.map { "\($0["status"] ?? "")/\($0["reason"] ?? "")" } }
        #expect(beforeWindow.count == 7)
        #expect(outcomes.count == 8, "one outcome per push, two for each deferred one")
        for id in ["bg-1", "bg-2", "bg-3", "bg-other"] { #expect(statuses(id) == ["accepted/"], "\(id)") }
        #expect(statuses("bg-4") == ["deferred/BackgroundBudget", "suppressed/BackgroundBudget"])
        #expect(statuses("bg-5") == ["deferred/BackgroundBudget", "accepted/"])
        let releaseAt = outcomes.first { $0["intent_id"] as? String == "bg-5" }?["release_at"] as? NSNumber
        #expect(releaseAt?.int64Value == Int64(Self.start / 1_000_000) + 3_600_000, "when the first counted push leaves the window")
        #expect(inboxBefore == 3)
        #expect(fixture.harness.simulator.inbox().count { $0.token == token.hex } == 4)
        #expect(try fixture.counter("pushline_deliveries_total", [("status", "deferred"), ("reason", "BackgroundBudget")]) == 2)
        #expect(try fixture.counter("pushline_suppressed_total", [("kind", "background_budget")]) == 1)
    }

    @Test("a background push's release that finds the budget full again (pushes another worker counted meanwhile) is deferred again by the release, then released by the next one and sent once")
    func backgroundReleaseDeferredAgain() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock)
        let token = try WorkerFixture.token(8)
        let push = { (id: String) in Self.intent(id, template: "background_sync", token: token, args: #"{"scope":"inbox"}"#) }
        for (index, id) in ["bg-1", "bg-2", "bg-3", "bg-4"].enumerated() {
            try await fixture.publish([push(id)])
            _ = try await fixture.records(on: "pushline.outcomes", count: index + 1)
        }
        // Three pushes to the device half an hour on, as another worker would have counted them: at the
        // 4th's release, when the first three have left the window, these fill it.
        let startMilliseconds = Int64(Self.start / 1_000_000)
        let counted = startMilliseconds + 1_800_000
        for member in ["elsewhere-1", "elsewhere-2", "elsewhere-3"] {
            _ = try await fixture.redisCommand(["ZADD", RollingWindows.backgroundBudgetKey(token: token), String(counted), member])
        }
        clock.advance(by: .seconds(3_600))
        _ = try await fixture.records(on: "pushline.outcomes", count: 5)
        let inboxAtFirstRelease = fixture.harness.simulator.inbox().count { $0.token == token.hex }
        clock.advance(by: .seconds(1_800))
        _ = try await fixture.records(on: "pushline.outcomes", count: 6)
        let outcomes = try await fixture.records(on: "pushline.outcomes", after: .seconds(2))
        try await fixture.stop()

        let fourth = outcomes.filter { $0["intent_id"] as? String == "bg-4" }
        #expect(fourth.map { "\($0["status"] ?? "")/\($0["reason"] ?? "")" }
                == ["deferred/BackgroundBudget", "deferred/BackgroundBudget", "accepted/"])
        #expect(fourth.compactMap { ($0["release_at"] as? NSNumber)?.int64Value }
                == [startMilliseconds + 3_600_000, counted + 3_600_000],
                "first when the first counted push leaves the window, then when the pushes counted elsewhere do")
        #expect(outcomes.count == 6, "the three sent at once, the 4th's two deferrals and its send")
        #expect(inboxAtFirstRelease == 3, "the first release is not sent")
        #expect(fixture.harness.simulator.inbox().count { $0.token == token.hex } == 4, "the 4th arrives once")
        #expect(try fixture.counter("pushline_deliveries_total", [("status", "deferred"), ("reason", "BackgroundBudget")]) == 2)
    }

    @Test("Live Activity updates past the activity's budget go at priority 5; end stays at 10")
    func liveActivityBudget() async throws {
        let clock = TestClock(start: Self.start)
        let fixture = try await Self.fixture(clock) { $0.liveActivityBudget.limit = .init(limit: 2, window: .seconds(60)) }
        let token = try WorkerFixture.token(8)
        let created = Int64(Self.start / 1_000_000)
        let activity = { (id: String, event: String) in
            Self.intent(id, template: "delivery_activity", token: token, args: #"{"minutes":5}"#,
                        extra: #""created_at":\#(created),"live_activity":{"event":"\#(event)"},"#)
        }
        try await fixture.publish([activity("la-1", "update"), activity("la-2", "update"), activity("la-3", "update"), activity("la-4", "end")])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 4)
        try await fixture.stop()

        #expect(Self.count(outcomes, "accepted") == 4)
        let priorities = fixture.harness.simulator.inbox().map { ($0.apnsID.lowercased(), $0.priority) }
        #expect(priorities.count { $0.1 == 5 } == 1)
        #expect(priorities.count { $0.1 == 10 } == 3)
        let endID = (outcomes.first { $0["intent_id"] as? String == "la-4" }?["apns_id"] as? String)?.lowercased()
        #expect(priorities.first { $0.0 == endID }?.1 == 10)
        #expect(try fixture.counter("pushline_live_activity_priority_lowered_total") == 1)
    }
}
