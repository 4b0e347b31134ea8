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
    /// when `release` is set, its release: the record the releaser produces, read back by the planner.
    private func planned(_ intent: [UInt8], timeZone: String? = nil, release: Bool = false) throws -> PlannedDelivery {
        let token = try StateMachineFixture.token(1)
        let message = StateMachineFixture.message(intent, offset: 0)
        guard case .intent(let decoded, nil) = planner.decode(message, entry: 0) else { throw Unplanned() }
        let plan = planner.plan(decoded, message: message, entry: 0, enricher: planner.catalog.enricher) { _, _ in
            [RecipientDevice(token: token, environment: .sandbox, profileTimeZone: timeZone)]
        }
        guard case .planned(let deliveries, _) = plan, deliveries.count == 1 else { throw Unplanned() }
        return release ? try Self.released(deliveries[0], by: planner) : deliveries[0]
    }

    /// The release of `deferred` as the worker plans it: its record (``ReleaseRecord/encoded(_:)``),
    /// read at offset 1.
    private static func released(_ deferred: PlannedDelivery, by planner: DeliveryPlanner) throws -> PlannedDelivery {
        let record = StateMachineFixture.message(ReleaseRecord.encoded(deferred), offset: 1)
        guard case .decided(.planned(let released, let outputs)) = planner.decode(record, entry: 1), released.count == 1, outputs.isEmpty
        else { throw Unplanned() }
        return released[0]
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
            DeferredEntry(id: $0.delivery.notificationID.description, releaseAt: windowEnd, body: ReleaseRecord.encoded($0),
                          coalescing: $0.delivery.token.hex)
        })
        let due = deferredStore.takeDue(now: clock.wallClock.millisecondsSinceEpoch())
        #expect(due.map(\.id) == [overBudget[0].delivery.notificationID.description], "the replaced one is due at once")
        #expect(try decide([planned(pushes[3], release: true)]) == ["suppressed/BackgroundBudget"])
        #expect(try decide([planned(pushes[4], release: true)]) == ["deferred until \(windowEnd) (BackgroundBudget)"],
                "released early (a second record), still over: deferred again")
        let deferredAgain = try planned(pushes[4], release: true)
        #expect(try Self.released(deferredAgain, by: planner).delivery == deferredAgain.delivery, "deferred again, its record carries the same delivery")
        clock.advance(by: .seconds(3_000))
        #expect(try decide([planned(pushes[4], release: true)]) == ["send"])
        #expect(try decide([planned(try Self.backgroundPush("bg-6"))]) == ["send"], "counted with the first three gone: two places left")
    }

    @Test("a release record carries the planned delivery and what its outcomes need; read back it is that delivery, as a release")
    func releaseRecordCarriesThePlannedDelivery() throws {
        let intent = Array(#"""
            {"schema_version":1,"id":"carried","app":"\#(StateMachineFixture.app)","environment":"sandbox","user":"ada","created_at":1796165000000,
             "dedupe_window":600,"collapse_id":"c-1","policy_category":"marketing","lane":"bulk","campaign":"winter","expires_at":1796200000,
             "payload":{"aps":{"alert":"hi"}}}
            """#.utf8)
        let original = try planned(intent, timeZone: "Europe/Vienna")
        let record = ReleaseRecord.encoded(original)
        #expect(ReleaseRecord.isRecord(record))
        #expect(ReleaseRecord(record) == .planned(ReleaseRecord.Planned(
            origin: DeliveryOrigin(intentID: "carried", app: StateMachineFixture.app, template: nil, createdAt: 1_796_165_000_000,
                                   dedupeWindow: 600, user: "ada", profileLocale: nil, profileTimeZone: "Europe/Vienna"),
            delivery: original.delivery)))
        #expect(original.delivery.policy.campaign == "winter" && original.delivery.collapseID == "c-1")

        let released = try Self.released(original, by: planner)
        #expect(released.isRelease && !original.isRelease)
        #expect(released.delivery == original.delivery)
        #expect(released.key == original.key)
        #expect(released.source == SourcePosition(topic: StateMachineFixture.topic, partition: 0, offset: 1))
        #expect([released.intentID, released.app, released.pool, released.user, released.profileTimeZone]
                == [original.intentID, original.app, original.pool, original.user, original.profileTimeZone])
        #expect(released.createdAt == original.createdAt && released.dedupeWindow == original.dedupeWindow)
        #expect(try decide([released]) == ["send"], "a release is past quiet hours")
    }

    @Test("a release record cut short is not one: the planner reads it as an intent and dead-letters it")
    func truncatedReleaseRecord() throws {
        let record = ReleaseRecord.encoded(try planned(Self.intent("cut")))
        #expect(ReleaseRecord(Array(record.dropLast())) == nil)
        #expect(ReleaseRecord(record + [0]) == nil)
        guard case .decided(.planned(let deliveries, let outputs)) = planner.decode(StateMachineFixture.message(Array(record.dropLast()), offset: 2),
                                                                                   entry: 2), deliveries.isEmpty else { throw Unplanned() }
        #expect(outputs.map(StateMachineFixture.describe) == ["dead letter MalformedJSON", "outcome invalid MalformedJSON"])
    }

    @Test("a release whose environment no sender pool serves any more: its dead letter and an invalid outcome, NoPoolForEnvironment")
    func releaseWithoutPool() throws {
        var configuration = WorkerConfiguration(consumer: KafkaConsumerConfiguration(bootstrapServers: "unused:9092", groupID: "g",
                                                                                     topics: [StateMachineFixture.topic]),
                                                producer: KafkaProducerConfiguration(bootstrapServers: "unused:9092"),
                                                stores: .inMemory, pools: [.production: "production"])
        configuration.wallClock = clock.wallClock
        let productionOnly = DeliveryPlanner(configuration: configuration, catalog: try LocalPipeline.catalogStore())
        let record = StateMachineFixture.message(ReleaseRecord.encoded(try planned(Self.intent("orphan"))), offset: 3)
        guard case .decided(.planned(let deliveries, let outputs)) = productionOnly.decode(record, entry: 3), deliveries.isEmpty
        else { throw Unplanned() }
        #expect(outputs.map(StateMachineFixture.describe) == ["dead letter NoPoolForEnvironment", "outcome invalid NoPoolForEnvironment"])
        let outcome = try #require(outputs.last.map { String(decoding: $0.record.value ?? [], as: UTF8.self) })
        let token = try StateMachineFixture.token(1)
        #expect(outcome.contains(#""intent_id":"orphan""#) && outcome.contains(#""token":"\#(token.hex)""#))
    }

    @Test("a release record of version 1 (written before 2026-12-05) keeps the device, its profile and the intent's bytes; an intent is not one")
    func releaseRecordOfVersionOne() throws {
        let intent = try Self.intent("kept")
        let token = try StateMachineFixture.token(4)
        let device = RecipientDevice(token: token, environment: .production, profileLocale: "de-AT", profileTimeZone: "Europe/Vienna")
        #expect(ReleaseRecord(Array("pushline-release 1 \(token.hex) de-AT Europe/Vienna\n".utf8) + intent) == .intent(device: device, intent: intent))
        #expect(ReleaseRecord(Array("pushline-release 1 \(token.hex) - -\n".utf8) + intent)
                == .intent(device: RecipientDevice(token: token, environment: .production), intent: intent))
        #expect(ReleaseRecord(intent) == nil)
        #expect(ReleaseRecord(Array("pushline-release 1 zz - -\n{}".utf8)) == nil)
    }
}
