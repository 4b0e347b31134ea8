import APNsCore
import Enrichment
import Kafka
import Pipeline
import PushlineConfiguration
import PushlineTestKit
import Runtime
import Testing
@testable import Worker

/// The policy stage's deferrals (docs/policies.md §2 and §4), with no Redis: quiet hours and the
/// background budget's coalesced release. Deliveries planned by a real ``DeliveryPlanner``, decided
/// by ``DeliveryPolicyStage`` at a wall clock the test sets. The window is 22:00–08:00, UTC unless
/// the recipient's profile names a zone.
@Suite("Quiet hours: the decision")
struct QuietHoursDecisionTests {
    /// 2026-12-01 23:00 UTC, inside the window, and the window's end, 2026-12-02 08:00 UTC (Unix ms).
    static let lateEvening: Int64 = 1_796_166_000_000
    static let windowEnd: Int64 = 1_796_198_400_000

    private let clock = TestClock(start: UInt64(QuietHoursDecisionTests.lateEvening) * 1_000_000)
    private let planner: DeliveryPlanner
    private let stage: DeliveryPolicyStage
    private let deferredStore = InMemoryDeferredStore()

    /// Every category but `security` held, no frequency caps.
    init() throws {
        try self.init(coverage: .allExcept(["security"]), capMarketing: false)
    }

    init(coverage: QuietHoursConfiguration.Coverage, capMarketing: Bool) throws {
        var configuration = WorkerConfiguration(consumer: KafkaConsumerConfiguration(bootstrapServers: "unused:9092", groupID: "g",
                                                                                     topics: [StateMachineFixture.topic]),
                                                producer: KafkaProducerConfiguration(bootstrapServers: "unused:9092"),
                                                stores: .inMemory, pools: [.sandbox: "sandbox"])
        configuration.policies.quietHours = QuietHoursConfiguration(start: TimeOfDay("22:00")!, end: TimeOfDay("08:00")!, coverage: coverage)
        if capMarketing {
            configuration.policies.frequencyCaps.rules = [.init(category: "marketing", limit: .init(limit: 1, window: .seconds(86_400)))]
        }
        configuration.wallClock = clock.wallClock
        planner = DeliveryPlanner(configuration: configuration, catalog: try LocalPipeline.catalogStore())
        stage = DeliveryPolicyStage(policies: configuration.policies, windows: InMemoryRollingWindows(), deferredStore: deferredStore,
                                    clock: configuration.wallClock)
    }

    /// The one delivery of `intent` (token 1, or the user's device with `timeZone` in its profile);
    /// as a release of it when `release` is set.
    private func planned(_ intent: [UInt8], timeZone: String? = nil, release: Bool = false) throws -> PlannedDelivery {
        let token = try StateMachineFixture.token(1)
        let value = release
            ? ReleaseRecord(device: RecipientDevice(token: token, environment: .sandbox, profileTimeZone: timeZone), intent: intent).encoded
            : intent
        let message = StateMachineFixture.message(value, offset: 0)
        guard case .intent(let decoded, let releaseRecord) = planner.decode(message, entry: 0) else { throw Unplanned() }
        let plan = planner.plan(decoded, release: releaseRecord, message: message, entry: 0, enricher: planner.catalog.enricher) { _, _ in
            [RecipientDevice(token: token, environment: .sandbox, profileTimeZone: timeZone)]
        }
        guard case .planned(let deliveries, _) = plan, deliveries.count == 1 else { throw Unplanned() }
        return deliveries[0]
    }

    /// The intent did not decode, or did not plan to one delivery.
    private struct Unplanned: Error {}

    private static func intent(_ id: String, extra: String = "") throws -> [UInt8] {
        try StateMachineFixture.intent(id: id, tokens: [1], extra: extra)
    }

    private func decide(_ planned: [PlannedDelivery]) throws -> [String] {
        try stage.decide(planned).decisions.map { decision in
            switch decision {
            case .send: "send"
            case .outcome(let status, let reason): "\(status.rawValue)/\(reason)"
            case .deferred(let until, let deferral): deferral == .quietHours ? "deferred until \(until)" : "deferred until \(until) (\(deferral.rawValue))"
            }
        }
    }

    @Test("inside the window: deferred until the window ends; outside it: sent")
    func insideAndOutside() throws {
        #expect(try decide([planned(Self.intent("late"))]) == ["deferred until \(Self.windowEnd)"])
        clock.advance(by: .seconds(9 * 3_600))
        #expect(try decide([planned(Self.intent("morning"))]) == ["send"])
    }

    @Test("the window is kept in the recipient's profile zone: 23:00 UTC is 08:00 in Tokyo, after its window; 18:00 in New York, before it")
    func profileTimeZone() throws {
        let intent = Array(#"{"schema_version":1,"id":"zone","app":"\#(StateMachineFixture.app)","environment":"sandbox","user":"ada","payload":{"aps":{"alert":"hi"}}}"#.utf8)
        #expect(try decide([planned(intent, timeZone: "Asia/Tokyo"), planned(intent, timeZone: "America/New_York"),
                            planned(intent, timeZone: "Europe/Berlin")])
                == ["send", "send", "deferred until \(Self.windowEnd - 3_600_000)"])
    }

    @Test("exempt categories are sent; other categories, and deliveries without one, are deferred")
    func exemptCategories() throws {
        #expect(try decide([planned(Self.intent("code", extra: #""policy_category":"security","#)),
                            planned(Self.intent("sale", extra: #""policy_category":"marketing","#)),
                            planned(Self.intent("plain"))])
                == ["send", "deferred until \(Self.windowEnd)", "deferred until \(Self.windowEnd)"])
    }

    @Test("with categories: only those are deferred, a delivery without a category is sent")
    func listedCategories() throws {
        let listed = try QuietHoursDecisionTests(coverage: .categories(["marketing"]), capMarketing: false)
        #expect(try listed.decide([listed.planned(Self.intent("sale", extra: #""policy_category":"marketing","#)),
                                   listed.planned(Self.intent("news", extra: #""policy_category":"news","#)),
                                   listed.planned(Self.intent("plain"))])
                == ["deferred until \(Self.windowEnd)", "send", "send"])
    }

    @Test("respect_quiet_hours: false sends through the window")
    func notRespected() throws {
        #expect(try decide([planned(Self.intent("urgent", extra: #""respect_quiet_hours":false,"#))]) == ["send"])
    }

    @Test("a release is sent inside the window too (it has waited for it already)")
    func releaseSkipsTheWindow() throws {
        let delivery = try planned(Self.intent("late"), release: true)
        #expect(delivery.isRelease)
        #expect(try decide([delivery]) == ["send"])
    }

    @Test("a time to live that ends before the window: deferred now, expired at its release")
    func timeToLiveEndsFirst() throws {
        let expiresAt = Self.lateEvening / 1000 + 3_600
        let intent = try Self.intent("short", extra: #""expires_at":\#(expiresAt),"#)
        #expect(try decide([planned(intent)]) == ["deferred until \(Self.windowEnd)"])
        clock.advance(by: .seconds(9 * 3_600))
        #expect(try decide([planned(intent, release: true)]) == ["expired/TimeToLiveElapsed"])
    }

    @Test("a deferred delivery takes no frequency-cap place: with a cap of one, the next marketing delivery still goes")
    func deferredIsNotCounted() throws {
        let capped = try QuietHoursDecisionTests(coverage: .allExcept(["security"]), capMarketing: true)
        let marketing = #""policy_category":"marketing","#
        #expect(try capped.decide([capped.planned(Self.intent("held", extra: marketing))]) == ["deferred until \(Self.windowEnd)"])
        #expect(try capped.decide([capped.planned(Self.intent("through", extra: marketing + #""respect_quiet_hours":false,"#))]) == ["send"])
        #expect(try capped.decide([capped.planned(Self.intent("held", extra: marketing), release: true)]) == ["suppressed/FrequencyCapped"])
    }

    /// A background push (the example app's `background_sync`) to token 1, sent through quiet hours.
    private static func backgroundPush(_ id: String) throws -> [UInt8] {
        Array(#"""
            {"schema_version":1,"id":"\#(id)","app":"\#(StateMachineFixture.app)","environment":"sandbox","tokens":["\#(try StateMachineFixture.token(1).hex)"],
             "respect_quiet_hours":false,"template":"background_sync","args":{"scope":"inbox"}}
            """#.utf8)
    }

    @Test("over the background budget (3 an hour): deferred until the earliest counted push leaves the window, the newest kept; the one it replaced ends suppressed at its release, the newest is counted again at its own")
    func backgroundBudgetCoalesces() throws {
        let pushes = try (1...5).map { try Self.backgroundPush("bg-\($0)") }
        let windowEnd = Self.lateEvening + 3_600_000
        #expect(try decide(pushes.prefix(3).map { try planned($0) }) == ["send", "send", "send"])
        clock.advance(by: .seconds(600))
        let overBudget = try pushes.suffix(2).map { try planned($0) }
        #expect(try decide(overBudget) == Array(repeating: "deferred until \(windowEnd) (BackgroundBudget)", count: 2))

        // What the worker keeps of them (DeliveryStages): one entry per device, the newest.
        deferredStore.keep(overBudget.map {
            DeferredEntry(id: $0.delivery.notificationID.description, releaseAt: windowEnd, body: ReleaseRecord($0).encoded,
                          coalescing: $0.delivery.token.hex)
        })
        let due = deferredStore.takeDue(now: clock.wallClock.millisecondsSinceEpoch())
        #expect(due.map(\.id) == [overBudget[0].delivery.notificationID.description], "the replaced one is due at once")
        #expect(try decide([planned(pushes[3], release: true)]) == ["suppressed/BackgroundBudget"])
        #expect(try decide([planned(pushes[4], release: true)]) == ["deferred until \(windowEnd) (BackgroundBudget)"],
                "released early (a second record), still over: deferred again")
        #expect(ReleaseRecord(try planned(pushes[4], release: true)).intent == pushes[4], "deferred again, it keeps the intent's bytes")
        clock.advance(by: .seconds(3_000))
        #expect(try decide([planned(pushes[4], release: true)]) == ["send"])
        #expect(try decide([planned(try Self.backgroundPush("bg-6"))]) == ["send"], "counted with the first three gone: two places left")
    }

    @Test("a release record keeps the device, its profile and the intent's bytes; an intent is not one")
    func releaseRecordRoundTrip() throws {
        let intent = try Self.intent("kept")
        let device = RecipientDevice(token: try StateMachineFixture.token(4), environment: .production, profileLocale: "de-AT",
                                     profileTimeZone: "Europe/Vienna")
        let bare = RecipientDevice(token: try StateMachineFixture.token(5), environment: .production)
        #expect(ReleaseRecord(ReleaseRecord(device: device, intent: intent).encoded) == ReleaseRecord(device: device, intent: intent))
        #expect(ReleaseRecord(ReleaseRecord(device: bare, intent: intent).encoded) == ReleaseRecord(device: bare, intent: intent))
        #expect(ReleaseRecord(intent) == nil)
        #expect(ReleaseRecord(Array("pushline-release 1 zz - -\n{}".utf8)) == nil)
    }
}
