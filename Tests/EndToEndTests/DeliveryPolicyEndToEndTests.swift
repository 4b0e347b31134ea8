import Foundation
import PushlineTestKit
import Testing

/// The delivery policies (docs/policies.md) through `pushline run`: a worker process configured from
/// YAML, the mock Kafka cluster, a real redis-server and the simulator. Each decision is one outcome.
@Suite("pushline run: delivery policies", .timeLimit(.minutes(3)))
struct DeliveryPolicyEndToEndTests {
    private static let token = EndToEndStack.token(41)

    /// An intent of the example app's template `template` for the test's token; `extra` adds fields (`"k":v,`).
    private static func intent(_ id: String, template: String, args: String, extra: String = "") -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"\(id)","app":"\(LocalPipeline.app)","environment":"sandbox","tokens":["\(token)"],\(extra)\
            "template":"\(template)","args":\(args)}
            """.utf8)
    }

    @Test("TTL elapsed, frequency capped, background budget (deferred) and a Live Activity update lowered to priority 5, each as configured in YAML")
    func policiesEndToEnd() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack(partitions: 1)
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.policies = [
                "  frequency_caps:",
                "    rules:",
                "      - { category: marketing, limit: 2, window: 1h }",
                "  background_budget: { limit: 2, window: 1h }",
                "  live_activity_budget: { limit: 1, window: 1m }",
            ]
            let worker = try stack.startWorker(configuration)
            defer { worker.stop() }
            let now = Int64(Date().timeIntervalSince1970)
            // A distinct order (so collapse id) each: the template's collapse window is not what is tested.
            let order = { (id: Int) in #"{"order":{"id":"\#(id)","items":3},"carrier":"DHL"}"# }
            var intents = [
                Self.intent("late", template: "order_update", args: order(1), extra: #""expires_at":\#(now - 60),"#),
                Self.intent("in-time", template: "order_update", args: order(2), extra: #""expires_at":\#(now + 3_600),"#),
            ]
            intents += (1...3).map { Self.intent("promo-\($0)", template: "order_update", args: order(10 + $0), extra: #""policy_category":"marketing","#) }
            intents += (1...3).map { Self.intent("sync-\($0)", template: "background_sync", args: #"{"scope":"inbox"}"#) }
            intents += (1...2).map {
                Self.intent("activity-\($0)", template: "delivery_activity", args: #"{"minutes":\#($0)}"#,
                            extra: #""created_at":\#(now * 1000),"live_activity":{"event":"update"},"#)
            }
            try stack.publish(intents)
            let log = try OutcomeLog(stack)
            try log.read(waitingFor: "an outcome per intent") { $0.count >= intents.count }
            let outcomes = try log.readUntilQuiet()

            #expect(outcomes.count == intents.count, "one outcome per delivery: \(outcomes.map(\.raw))")
            let byIntent = Dictionary(grouping: outcomes, by: \.intentID)
            #expect(byIntent["late"]?.map { "\($0.status)/\($0.reason ?? "")" } == ["expired/TimeToLiveElapsed"])
            #expect(byIntent["in-time"]?.first?.status == "accepted")
            let promos = outcomes.filter { $0.intentID.hasPrefix("promo-") }
            #expect(promos.count { $0.status == "accepted" } == 2)
            #expect(promos.count { $0.status == "suppressed" && $0.reason == "FrequencyCapped" } == 1)
            let syncs = outcomes.filter { $0.intentID.hasPrefix("sync-") }
            #expect(syncs.count { $0.status == "accepted" } == 2)
            #expect(syncs.count { $0.status == "deferred" && $0.reason == "BackgroundBudget" } == 1, "sent when the window has room, an hour on")
            #expect(outcomes.filter { $0.intentID.hasPrefix("activity-") }.allSatisfy { $0.status == "accepted" })

            let inbox = stack.harness.simulator.inbox()
            #expect(inbox.count == 1 + 2 + 2 + 2, "the accepted ones only")
            #expect(inbox.first { $0.pushType == "alert" && $0.expiration == now + 3_600 } != nil, "expires_at became apns-expiration")
            let activityPriorities = inbox.filter { $0.pushType == "liveactivity" }.map(\.priority).sorted()
            #expect(activityPriorities == [5, 10])
        }
    }
}
