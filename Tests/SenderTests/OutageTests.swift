import APNsClient
import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import Testing

/// APNs brownouts and streams without answers: the pool's circuit, held deliveries, the request
/// timeout and uncertain streams, against the in-process simulator.
@Suite("APNs outages: circuit, held deliveries, uncertain streams", .serialized, .timeLimit(.minutes(2)))
struct OutageTests {
    /// A fixture whose circuit opens after 5 outages among the last 10 answers and probes every
    /// 100 ms, doubling to 400 ms.
    private func fixture(_ configuration: SimulatorConfiguration, metrics: SenderMetrics = NoSenderMetrics(),
                         sender adjust: (inout SenderConfiguration) -> Void = { _ in }) throws -> SenderFixture {
        try SenderFixture(simulator: configuration, metrics: metrics) { sender in
            sender.circuit.threshold = 5
            sender.circuit.window = 10
            sender.circuit.probeIntervalMilliseconds = 100
            sender.circuit.maximumProbeIntervalMilliseconds = 400
            adjust(&sender)
        }
    }

    /// How many times each device was notified (duplicates counted, not hidden by a set).
    private func notificationsPerDevice(_ simulator: APNsSimulator) -> [String: Int] {
        var counts: [String: Int] = [:]
        for notification in simulator.inbox() { counts[notification.token ?? "-", default: 0] += 1 }
        return counts
    }

    private func setFaults(_ simulator: APNsSimulator, _ change: (inout SimulatorFaults) -> Void) {
        var faults = simulator.faults
        change(&faults)
        simulator.setFaults(faults)
    }

    @Test("503 for everything: the circuit opens, only probes go out, at growing intervals; after the fault nothing failed and each device got its notification once")
    func serviceUnavailableOpensCircuitAndHolds() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.serviceUnavailableRate = 1
        let metrics = RecordingMetrics()
        let fixture = try fixture(configuration, metrics: metrics) { $0.maximumAttempts = 2 }
        defer { fixture.stop() }
        let simulator = fixture.harness.simulator
        let sender = fixture.sender
        let notifications = try SenderFixture.notifications(100)
        let sending = Task { try await sender.send(notifications, pool: "dev") }

        try Deadline.wait(.seconds(10), for: "the circuit to open") { sender.openCircuits() == ["dev"] }
        #expect(metrics.circuitStates.withLock { $0 } == [.open])
        // Requests sent before it opened may still arrive for a moment; then only probes do.
        try await Task.sleep(for: .milliseconds(300))
        let (requestsBefore, probesBefore) = (simulator.stats().requests, metrics.probes.load(ordering: .relaxed))
        try await Task.sleep(for: .seconds(2))
        let probesAtSimulator = simulator.stats().requests - requestsBefore
        let probesSent = metrics.probes.load(ordering: .relaxed) - probesBefore
        #expect(sender.openCircuits() == ["dev"], "still open while APNs answers 503")
        // Fixed 100 ms intervals would allow up to 40 probes in 2 s; doubling to 400 ms about 8.
        #expect(probesAtSimulator >= 2 && probesAtSimulator <= 12, "\(probesAtSimulator) probes")
        #expect(abs(probesSent - probesAtSimulator) <= 1, "every request the simulator saw was a probe (one may be on its way)")

        setFaults(simulator) { $0.serviceUnavailableRate = 0 }
        let results = try await sending.value
        #expect(results.allSatisfy { $0.outcome == .accepted }, "\(Set(results.map(\.outcome)))")
        #expect(results.contains { $0.attempts > 2 }, "outage retries are not bounded by maximumAttempts")
        #expect(sender.openCircuits().isEmpty)
        #expect(metrics.circuitStates.withLock { $0 } == [.open, .closed])
        let perDevice = notificationsPerDevice(simulator)
        #expect(perDevice.count == 100)
        #expect(perDevice.values.allSatisfy { $0 == 1 }, "no device notified twice")
        #expect(metrics.results.withLock { $0["failed"] } == nil)
    }

    @Test("a delivery held past max_hold ends expired, not failed")
    func heldPastMaximumHold() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.serviceUnavailableRate = 1
        let metrics = RecordingMetrics()
        let fixture = try fixture(configuration, metrics: metrics) { $0.maximumHoldMilliseconds = 2_000; $0.maximumAttempts = 1 }
        defer { fixture.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(20), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .expired }, "\(Set(results.map(\.outcome)))")
        #expect(results.allSatisfy { $0.failureDetail?.contains("max_hold") == true }, "\(results[0].failureDetail ?? "-")")
        #expect(results.allSatisfy { $0.latencyMilliseconds >= 2_000 }, "held until max_hold, not failed earlier")
        #expect(fixture.harness.simulator.inbox().isEmpty)
        // Nothing is left to probe with: the circuit closes at its next probe time, so that new work
        // (which an open circuit keeps away) can tell whether APNs is back.
        let sender = fixture.sender
        try Deadline.wait(.seconds(5), for: "the circuit to close with nothing left to probe") { sender.openCircuits().isEmpty }
        #expect(metrics.circuitStates.withLock { $0 } == [.open, .closed])
    }

    /// Sends `count` notifications whose `apns-expiration` is two seconds (of the wall clock's whole
    /// seconds) away to a simulator with `faults`; returns their results and the simulator's counts.
    private func sendExpiringInTwoSeconds(_ count: Int, faults: (inout SimulatorFaults) -> Void) async throws
        -> (results: [DeliveryResult], simulator: SimulatorStats) {
        var configuration = SimulatorConfiguration()
        faults(&configuration.faults)
        let fixture = try fixture(configuration)
        defer { fixture.stop() }
        var notifications = try SenderFixture.notifications(count)
        let expiration = WallClock.millisecondsSinceEpoch() / 1000 + 2
        for index in notifications.indices { notifications[index].expiration = .at(unixSeconds: expiration) }
        return (try await fixture.sender.send(notifications, pool: "dev"), fixture.harness.simulator.stats())
    }

    @Test("a notification whose apns-expiration passes while it is held ends expired")
    func expirationPassesWhileHeld() async throws {
        let (results, _) = try await sendExpiringInTwoSeconds(5) { $0.serviceUnavailableRate = 1 }
        #expect(results.allSatisfy { $0.outcome == .expired }, "\(Set(results.map(\.outcome)))")
        #expect(results.allSatisfy { $0.failureDetail?.contains("apns-expiration") == true }, "\(results[0].failureDetail ?? "-")")
    }

    @Test("a notification whose apns-expiration passes with its request in flight ends expired, its detail naming apns-expiration")
    func expirationPassesInFlight() async throws {
        let (results, simulator) = try await sendExpiringInTwoSeconds(3) { $0.neverRespondRate = 1 }
        #expect(results.allSatisfy { $0.outcome == .expired }, "\(Set(results.map(\.outcome)))")
        #expect(results.map(\.failureDetail) == Array(repeating: "apns-expiration passed with the request in flight", count: 3))
        #expect(simulator.neverResponded == 3, "each request was in flight, unanswered, when it expired")
    }

    @Test("a stream never answered is cancelled at the request timeout and sent again (on_uncertain resend)")
    func requestTimeoutResends() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.neverRespondRate = 1
        let fixture = try fixture(configuration) { $0.requestTimeoutMilliseconds = 300 }
        defer { fixture.stop() }
        let simulator = fixture.harness.simulator
        let sending = Task { [sender = fixture.sender] in try await sender.send(SenderFixture.notifications(3), pool: "dev") }
        try Deadline.wait(.seconds(10), for: "stuck streams") { simulator.stats().neverResponded >= 3 }
        setFaults(simulator) { $0.neverRespondRate = 0 }
        let results = try await sending.value
        #expect(results.allSatisfy { $0.outcome == .accepted }, "\(Set(results.map(\.outcome)))")
        #expect(results.allSatisfy { $0.attempts >= 2 })
    }

    @Test("under on_uncertain skip, a request timeout ends uncertain and is not sent again")
    func requestTimeoutUncertain() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.neverRespondRate = 1
        let fixture = try fixture(configuration) { $0.requestTimeoutMilliseconds = 300; $0.onUncertain = .skip }
        defer { fixture.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(3), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .uncertain }, "\(Set(results.map(\.outcome)))")
        #expect(results.allSatisfy { $0.attempts == 1 })
        #expect(results.allSatisfy { $0.failureDetail?.contains("request timeout") == true })
        #expect(fixture.harness.simulator.stats().requests == 3, "no request sent twice")
    }

    @Test("under on_uncertain skip, connections dropped with streams open end uncertain; none fails, no device notified twice")
    func droppedConnectionsUncertain() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.resetConnectionRate = 0.05
        configuration.randomSeed = 7
        let fixture = try fixture(configuration) { $0.onUncertain = .skip }
        defer { fixture.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(400), pool: "dev")
        let uncertain = results.filter { $0.outcome == .uncertain }
        #expect(fixture.harness.simulator.stats().connectionResets > 0, "the premise: connections were dropped")
        #expect(!uncertain.isEmpty)
        #expect(results.allSatisfy { $0.outcome == .accepted || $0.outcome == .uncertain }, "\(Set(results.map(\.outcome)))")
        #expect(uncertain.allSatisfy { $0.failureDetail?.contains("may have reached APNs") == true })
        let perDevice = notificationsPerDevice(fixture.harness.simulator)
        #expect(perDevice.values.allSatisfy { $0 == 1 }, "no device notified twice")
        // APNs may have taken an uncertain one before its connection dropped: in the inbox or not,
        // never twice; every accepted one is there.
        let accepted = results.filter { $0.outcome == .accepted }.map(\.deviceToken.hex)
        #expect(accepted.allSatisfy { perDevice[$0] == 1 })
        #expect(perDevice.count <= results.count)
    }

    @Test("under on_uncertain skip, streams above a GOAWAY's last stream id are still sent again: all accepted, each once")
    func refusedStreamsAlwaysResent() async throws {
        let server = try GoAwayServer()
        defer { server.stop() }
        var configuration = SenderConfiguration()
        configuration.caFile = server.certificateFile
        configuration.onUncertain = .skip
        configuration.maximumAttempts = 1
        configuration.retryBackoffMilliseconds = 10
        configuration.reconnectBackoffMilliseconds = 50
        configuration.connectionSpacingMilliseconds = 10
        let metrics = RecordingMetrics()
        let sender = try APNsSender(configuration: configuration, metrics: metrics)
        defer { sender.shutdown() }
        try sender.addPool(named: "refusing", credentials: .token(ProviderTokenSource(credentials: SenderFixture.devCredentials())),
                           environment: APNsEnvironment(host: "localhost", port: server.port))
        let notifications = try SenderFixture.notifications(50)
        let results = try await sender.send(notifications, pool: "refusing")
        #expect(server.refusingGoAways == 1, "the premise: the first connection refused its streams")
        #expect((metrics.retries.withLock { $0["refused"] } ?? 0) > 0, "the premise: streams above the GOAWAY's last id were refused")
        #expect(results.allSatisfy { $0.outcome == .accepted }, "\(Set(results.map(\.outcome)))")
        let answered = server.answeredPerPath
        #expect(answered.count == 50)
        #expect(answered.values.allSatisfy { $0 == 1 }, "each request answered once")
    }
}
