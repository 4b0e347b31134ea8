import Telemetry
import Testing
@testable import Worker

/// `pushline_interruption_level_deliveries_total` counted over the deliveries about to be sent (the
/// metrics count a run of deliveries with the same app and level at once). Deliveries planned by a
/// real ``DeliveryPlanner`` from the example catalog's `chat_message` (level `active`), with the
/// intent's `interruption_level` overriding it; a raw alert, which has no level; a raw background
/// push, which is no alert.
@Suite("Interruption levels: the metric")
struct InterruptionLevelMetricsTests {
    private let planner: DeliveryPlanner

    init() throws {
        planner = try StateMachineFixture().planner
    }

    @Test("each alert counts under its level, a level that comes back adding to its count; the template's level when the intent sets none, active when neither does; a background push is no alert")
    func countsByLevel() throws {
        let registry = MetricsRegistry()
        let metrics = try WorkerMetrics(registry: registry, pipeline: "default")
        let levels: [String?] = ["passive", "passive", "time-sensitive", nil, "active", "passive"]
        var sending = try levels.enumerated().map { try planned(chatMessage(id: "c\($0.offset)", level: $0.element), offset: $0.offset) }
        sending.insert(try planned(backgroundPush(id: "b"), offset: levels.count), at: 3)
        sending.append(try planned(StateMachineFixture.intent(id: "raw", tokens: [1]), offset: levels.count + 1))

        metrics.interruptionLevels(sending)

        func count(_ level: String) throws -> Int64 {
            try registry.makeCounter(label: "pushline_interruption_level_deliveries_total",
                                     dimensions: [("pipeline", "default"), ("app", StateMachineFixture.app), ("level", level)]).value
        }
        #expect(try count("passive") == 3)
        #expect(try count("time-sensitive") == 1)
        #expect(try count("active") == 3)
        #expect(try count("critical") == 0)
    }

    /// The one delivery of `intent`, read at `offset`.
    private func planned(_ intent: [UInt8], offset: Int) throws -> PlannedDelivery {
        let plan = planner.plan(StateMachineFixture.message(intent, offset: Int64(offset)), entry: offset, enricher: planner.catalog.enricher)
        guard case .planned(let deliveries, _) = plan, deliveries.count == 1 else { throw Unplanned() }
        return deliveries[0]
    }

    /// The intent did not plan to one delivery.
    private struct Unplanned: Error {}

    private func chatMessage(id: String, level: String?) throws -> [UInt8] {
        let override = level.map { #""interruption_level":"\#($0)","# } ?? ""
        return Array("""
            {"schema_version":1,"id":"\(id)","app":"\(StateMachineFixture.app)","environment":"sandbox",\(override)
             "tokens":["\(try StateMachineFixture.token(1).hex)"],"template":"chat_message",
             "args":{"sender":"Anna","chat":{"id":"4521","name":"Climbing crew"},"message_id":"m-1","text":"Rope is in the car"}}
            """.utf8)
    }

    private func backgroundPush(id: String) throws -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"\(id)","app":"\(StateMachineFixture.app)","environment":"sandbox","push_type":"background",
             "tokens":["\(try StateMachineFixture.token(1).hex)"],"payload":{"aps":{"content-available":1}}}
            """.utf8)
    }
}
