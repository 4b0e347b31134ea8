import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import Testing

/// APNs answering 503 to everything for a few seconds under a running worker.
@Suite("Worker: APNs outage", .serialized)
struct APNsOutageTests {
    @Test("503 for a few seconds: the pool's circuit opens, partitions pause and /readyz is not ready; afterwards every intent is accepted once, none failed")
    func serviceUnavailableHoldsWork() async throws {
        let fixture = try await WorkerFixture()
        let simulator = fixture.harness.simulator
        let sender = fixture.pipeline.sender
        var faults = simulator.faults
        faults.serviceUnavailableRate = 1
        simulator.setFaults(faults)

        let tokens = try (100..<140).map(WorkerFixture.token)
        try await fixture.publish(tokens.enumerated().map { WorkerFixture.intent(id: "outage-\($0.offset)", tokens: [$0.element]) })
        try await fixture.wait(for: "the circuit to open and the partitions to pause") {
            try sender.openCircuits() == ["dev"] && fixture.gauge("pushline_consumer_paused") == 1
        }
        #expect(!fixture.pipeline.worker.isReady, "/readyz answers 503 while the circuit is open")
        let laterTokens = try (140..<150).map(WorkerFixture.token)
        try await fixture.publish(laterTokens.enumerated().map { WorkerFixture.intent(id: "later-\($0.offset)", tokens: [$0.element]) })
        try await Task.sleep(for: .seconds(2))
        let outcomesWhileOut = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(200))
        #expect(outcomesWhileOut.isEmpty, "nothing failed or was recorded while APNs was out")
        #expect(simulator.inbox().isEmpty)

        faults.serviceUnavailableRate = 0
        simulator.setFaults(faults)
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 50)
        try await fixture.wait(for: "the worker to resume") {
            try sender.openCircuits().isEmpty && fixture.gauge("pushline_consumer_paused") == 0
        }
        let ready = fixture.pipeline.worker.isReady
        let settled = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        let deadLetters = try await fixture.records(on: "pushline.dlq", after: .milliseconds(200))
        try await fixture.stop()

        #expect(ready)
        #expect(settled.count == 50, "exactly one outcome per delivery")
        #expect(outcomes.allSatisfy { $0["status"] as? String == "accepted" }, "\(Set(outcomes.map { $0["status"] as? String ?? "-" }))")
        #expect(deadLetters.isEmpty)
        var perDevice: [String: Int] = [:]
        for notification in simulator.inbox() { perDevice[notification.token ?? "-", default: 0] += 1 }
        #expect(perDevice.count == 50)
        #expect(perDevice.values.allSatisfy { $0 == 1 }, "no device notified twice")
        #expect(fixture.logLines.messages.contains("partitions paused"))
    }

    @Test("lag in time: 0 once the worker has caught up; while APNs is out and the partitions pause, the age of what waits; 0 again after")
    func lagInTimeFollowsTheWait() async throws {
        let fixture = try await WorkerFixture()
        let registry = fixture.registry
        let lagSeconds = { @Sendable in
            try registry.makeGauge(label: "pushline_consumer_lag_seconds",
                                   dimensions: [("pipeline", "default"), ("topic", LocalPipeline.intentsTopic), ("partition", "0")]).value
        }
        try await fixture.publish([WorkerFixture.intent(id: "lag-first", tokens: [try WorkerFixture.token(170)])])
        _ = try await fixture.records(on: "pushline.outcomes", count: 1)
        try await fixture.wait(for: "no lag once the outcome is recorded") { try fixture.gauge("pushline_worker_ready") == 1 && lagSeconds() == 0 }

        var faults = fixture.harness.simulator.faults
        faults.serviceUnavailableRate = 1
        fixture.harness.simulator.setFaults(faults)
        try await fixture.publish(try (171..<211).enumerated().map { WorkerFixture.intent(id: "lag-\($0.offset)", tokens: [try WorkerFixture.token($0.element)]) })
        try await fixture.wait(for: "the partitions to pause with the circuit open") { try fixture.gauge("pushline_consumer_paused") == 1 }
        try await fixture.wait(for: "the lag in time to grow past 2 s") { try lagSeconds() >= 2 }
        let notReady = try fixture.gauge("pushline_worker_ready")

        faults.serviceUnavailableRate = 0
        fixture.harness.simulator.setFaults(faults)
        _ = try await fixture.records(on: "pushline.outcomes", count: 41)
        try await fixture.wait(for: "no lag once APNs is back and everything is recorded") { try lagSeconds() == 0 }
        try await fixture.stop()

        #expect(notReady == 0, "pushline_worker_ready is 0 while the circuit is open")
        #expect(try fixture.gauge("pushline_worker_ready") == 0, "and 0 once the worker stopped")
    }

    @Test("APNs gone (connections refused): /readyz not ready and pushline_apns_reachable 0 with no work waiting; APNs back: ready again, and an intent is accepted")
    func poolThatCannotConnectIsNotReady() async throws {
        let fixture = try await WorkerFixture(sender: {
            $0.reconnectBackoffMilliseconds = 100
            $0.maximumReconnectBackoffMilliseconds = 200
        })
        try await fixture.wait(for: "the worker to be ready") { fixture.pipeline.worker.isReady }
        #expect(try fixture.gauge("pushline_apns_reachable") == 1)
        let gone = fixture.harness
        try await DedicatedThread.run { gone.stop() }
        let stopped = MonotonicClock.now
        try await fixture.wait(for: "the worker to see APNs gone") {
            try !fixture.pipeline.worker.isReady && fixture.gauge("pushline_apns_reachable") == 0
        }
        let noticed = MonotonicClock.now - stopped
        #expect(fixture.pipeline.sender.openCircuits().isEmpty, "no work waited: the circuit stays closed, readiness says it")
        #expect(fixture.logLines.messages.contains("apns pool cannot connect"))

        let back = try SimulatorHarness(replacing: gone)
        let restarted = MonotonicClock.now
        try await fixture.wait(for: "the worker to reach APNs again") {
            try fixture.pipeline.worker.isReady && fixture.gauge("pushline_apns_reachable") == 1
        }
        print("APNs gone: not ready after \(noticed); APNs back: ready after \(MonotonicClock.now - restarted)")
        try await fixture.publish([WorkerFixture.intent(id: "after-apns-back", tokens: [try WorkerFixture.token(160)])])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        try await fixture.stop()
        try await DedicatedThread.run { back.stop() }

        #expect(outcomes.map { $0["status"] as? String } == ["accepted"])
        #expect(back.simulator.inbox().count == 1)
        #expect(fixture.logLines.messages.contains("apns reachable again"))
    }

    @Test("under on_uncertain skip, a request APNs never answers ends unknown/UncertainDelivery after the request timeout: sent once, no dead letter, its claim settled")
    func unansweredRequestIsUnknownUnderSkip() async throws {
        let fixture = try await WorkerFixture(configure: { $0.onUncertain = .skip }, sender: { $0.requestTimeoutMilliseconds = 300 })
        var faults = fixture.harness.simulator.faults
        faults.neverRespondRate = 1
        fixture.harness.simulator.setFaults(faults)
        let token = try WorkerFixture.token(150)
        try await fixture.publish([WorkerFixture.intent(id: "unanswered", tokens: [token])])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        let quiet = try await fixture.records(on: "pushline.outcomes", after: .milliseconds(500))
        let deadLetters = try await fixture.records(on: "pushline.dlq", after: .milliseconds(200))
        let claim = try await fixture.redisCommand(["GET", WorkerFixture.claimKey(intent: "unanswered", token: token)])
        let requests = fixture.harness.simulator.stats().requests
        try await fixture.stop()

        #expect(outcomes.map { "\($0["status"] as? String ?? "") \($0["reason"] as? String ?? "")" } == ["unknown UncertainDelivery"])
        #expect(quiet.count == 1, "one outcome, nothing after it")
        #expect(deadLetters.isEmpty, "an uncertain delivery is not bad input")
        #expect(claim?.hasPrefix("failed") == true, "settled, so a redelivery does not send it again: \(claim ?? "none")")
        #expect(requests == 1, "sent once, not again")
    }
}
