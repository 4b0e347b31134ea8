import APNsClient
import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import Synchronization
import TLS
import Testing

/// Wall-clock time the test moves by hand, shared by the token source and the simulator.
private final class SharedClock: Sendable {
    private let milliseconds = Mutex<Int64>(APNsSimulator.systemNow())
    func advance(minutes: Int64) { milliseconds.withLock { $0 += minutes * 60_000 } }
    var unixMilliseconds: @Sendable () -> Int64 { { [self] in milliseconds.withLock { $0 } } }
    var unixSeconds: @Sendable () -> Int64 { { [self] in milliseconds.withLock { $0 } / 1000 } }
}

/// Counts what the sender reports.
final class RecordingMetrics: SenderMetrics {
    let results = Mutex<[String: Int]>([:])
    let retries = Mutex<[String: Int]>([:])
    let tokenRefreshes = Atomic<Int>(0)
    let lastPoolState = Mutex<(open: Int, inFlight: Int, free: Int)?>(nil)
    /// Circuit transitions in order, and probes sent.
    let circuitStates = Mutex<[PoolCircuit.State]>([])
    let probes = Atomic<Int>(0)

    func recordResult(pool: String, outcome: DeliveryResult.Outcome, status: Int?, reason: String?, latencyMilliseconds: Double) {
        results.withLock { $0[outcome.rawValue, default: 0] += 1 }
    }
    func recordRetry(pool: String, cause: String) { retries.withLock { $0[cause, default: 0] += 1 } }
    func recordTokenRefresh(pool: String) { tokenRefreshes.add(1, ordering: .relaxed) }
    func recordPoolState(pool: String, openConnections: Int, inFlightStreams: Int, freeStreamCapacity: Int) {
        lastPoolState.withLock { $0 = (openConnections, inFlightStreams, freeStreamCapacity) }
    }
    func recordCircuit(pool: String, state: PoolCircuit.State, cause: String) { circuitStates.withLock { $0.append(state) } }
    func recordProbe(pool: String) { probes.add(1, ordering: .relaxed) }
}

@Suite("Provider tokens over hours, many credentials, metrics", .serialized, .timeLimit(.minutes(1)))
struct ProviderTokenLifecycleTests {
    @Test("six hours of traffic with tokens refreshed every 50 minutes never trigger TooManyProviderTokenUpdates or expiry")
    func longRunWithRefreshes() async throws {
        let clock = SharedClock()
        let metrics = RecordingMetrics()
        let fixture = try SenderFixture(simulatorClock: clock.unixMilliseconds, metrics: metrics, tokenClock: clock.unixSeconds)
        defer { fixture.stop() }
        for step in 0..<36 { // every 10 simulated minutes for 6 hours
            let results = try await fixture.sender.send(SenderFixture.notifications(5, intent: "step\(step)"), pool: "dev")
            #expect(results.allSatisfy { $0.outcome == .accepted && $0.attempts == 1 }, "step \(step)")
            clock.advance(minutes: 10)
        }
        let stats = fixture.harness.simulator.stats()
        #expect(stats.rejectionsByReason["TooManyProviderTokenUpdates"] == nil)
        #expect(stats.rejectionsByReason["ExpiredProviderToken"] == nil)
        #expect(metrics.tokenRefreshes.load(ordering: .relaxed) >= 6, "the connection adopted fresh tokens along the way")
    }

    @Test("a connection drained by ExpiredProviderToken closes once its other streams are answered; the retry goes out on a fresh connection")
    func drainedConnectionClosesAfterItsLastAnswer() async throws {
        let metrics = RecordingMetrics()
        let rotation = try ExpiringTokenRotation(metrics: metrics)
        defer { rotation.fixture.stop() }
        try await rotation.warmUp(thenAnswering: { $0.latencyMilliseconds = 2000 })
        let inFlight = Task { try await rotation.fixture.sender.send(SenderFixture.notifications(5, intent: "slow"), pool: "dev") }
        let retried = try await rotation.expireToken(behind: 5)
        #expect(retried.outcome == .accepted)
        #expect(retried.attempts == 2)
        let stats = rotation.fixture.harness.simulator.stats()
        #expect(stats.rejectionsByReason["ExpiredProviderToken"] == 1)
        #expect(stats.connectionsOpened == 2, "the retry went out on a second connection")

        let slow = try await inFlight.value
        // Answered on the drained connection: not cut off by its close, so not retried.
        #expect(slow.allSatisfy { $0.outcome == .accepted && $0.attempts == 1 })
        try rotation.waitForDrainedConnectionToClose()
    }

    @Test("a connection drained by ExpiredProviderToken closes once its other streams are cancelled at their deadline")
    func drainedConnectionClosesWhenItsLastStreamExpires() async throws {
        let metrics = RecordingMetrics()
        let rotation = try ExpiringTokenRotation(metrics: metrics, sender: { $0.maximumHoldMilliseconds = 2000 })
        defer { rotation.fixture.stop() }
        try await rotation.warmUp(thenAnswering: { $0.neverRespondRate = 1 })
        let inFlight = Task { try await rotation.fixture.sender.send(SenderFixture.notifications(3, intent: "stuck"), pool: "dev") }
        let retried = try await rotation.expireToken(behind: 3)
        #expect(retried.outcome == .accepted)
        #expect(retried.attempts == 2)

        let stuck = try await inFlight.value
        #expect(stuck.allSatisfy { $0.outcome == .expired && $0.attempts == 1 })
        try rotation.waitForDrainedConnectionToClose()
    }

    @Test("two teams' keys in one process: each pool signs with its own key and both are accepted")
    func manyCredentials() async throws {
        let otherKey = try ES256SigningKey.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let publicKeyFile = directory.appendingPathComponent("other.pem").path
        try otherKey.publicKeyPEM().write(toFile: publicKeyFile, atomically: true, encoding: .utf8)
        var configuration = SimulatorConfiguration()
        try configuration.trustKey(id: "OTHERKEY01", teamID: "OTHERTEAM1", pemFile: publicKeyFile)
        let fixture = try SenderFixture(simulator: configuration)
        defer { fixture.stop() }
        let other = ProviderTokenCredentials(keyID: "OTHERKEY01", teamID: "OTHERTEAM1", signingKey: otherKey)
        try fixture.sender.addPool(named: "other-team", credentials: .token(ProviderTokenSource(credentials: other)),
                                   environment: APNsEnvironment(host: "localhost", port: fixture.harness.devicePort))
        async let first = fixture.sender.send(SenderFixture.notifications(20, intent: "a"), pool: "dev")
        async let second = fixture.sender.send(SenderFixture.notifications(20, intent: "b"), pool: "other-team")
        let results = try await first + second
        #expect(results.count == 40)
        #expect(results.allSatisfy { $0.outcome == .accepted })
    }

    @Test("metrics hooks see results by outcome, retries by cause, token refreshes and pool state")
    func metricsHooks() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.internalServerErrorRate = 0.5
        configuration.randomSeed = 7
        let metrics = RecordingMetrics()
        let fixture = try SenderFixture(simulator: configuration, metrics: metrics, sender: { $0.maximumAttempts = 20 })
        defer { fixture.stop() }
        var batch = try SenderFixture.notifications(40)
        batch[0].pushType = .voip // rejected
        _ = try await fixture.sender.send(batch, pool: "dev")
        #expect(metrics.results.withLock { $0 } == ["accepted": 39, "rejected": 1])
        #expect((metrics.retries.withLock { $0["InternalServerError"] } ?? 0) > 0)
        #expect(metrics.tokenRefreshes.load(ordering: .relaxed) >= 1)
        #expect((metrics.lastPoolState.withLock { $0?.open } ?? 0) >= 1)
    }
}

/// A pool whose one connection has streams in flight when APNs answers `ExpiredProviderToken` to
/// another request on it: the simulator's clock jumps 61 minutes (the connection's token is then
/// too old), the token source's only 45 (it keeps that token until APNs rejects it, then signs one
/// the simulator accepts).
private struct ExpiringTokenRotation {
    let fixture: SenderFixture
    let metrics: RecordingMetrics
    private let simulatorClock = SharedClock()
    private let tokenClock = SharedClock()

    init(metrics: RecordingMetrics, sender adjust: (inout SenderConfiguration) -> Void = { _ in }) throws {
        self.metrics = metrics
        fixture = try SenderFixture(simulatorClock: simulatorClock.unixMilliseconds, metrics: metrics, sender: adjust,
                                    tokenClock: tokenClock.unixSeconds)
    }

    /// Sends one notification, so the connection has its token and its full stream limit; then
    /// the simulator answers the way `faults` says (slowly, or never).
    func warmUp(thenAnswering faults: (inout SimulatorFaults) -> Void) async throws {
        let warmUp = try await fixture.sender.send(SenderFixture.notifications(1, intent: "warm-up"), pool: "dev")
        #expect(warmUp.first?.outcome == .accepted)
        fixture.harness.simulator.updateFaults { current in
            var changed = current
            faults(&changed)
            return changed
        }
    }

    /// Waits until `inFlight` requests sent after the warm-up reach the simulator; then expires the
    /// connection's token, answers at once again, and sends one more notification: its result.
    func expireToken(behind inFlight: Int) async throws -> DeliveryResult {
        let simulator = fixture.harness.simulator
        try Deadline.wait(.seconds(10), for: "\(inFlight) requests in flight") { simulator.stats().requests == 1 + inFlight }
        simulator.setFaults(SimulatorFaults())
        simulatorClock.advance(minutes: 61)
        tokenClock.advance(minutes: 45)
        return try #require(try await fixture.sender.send(SenderFixture.notifications(1, intent: "rejected"), pool: "dev").first)
    }

    /// The first connection leaves the simulator and the pool's count. The pool reports its count
    /// just after the socket closes, so the simulator may see the close a moment before it.
    func waitForDrainedConnectionToClose() throws {
        try Deadline.wait(.seconds(5), for: "the drained connection to close and leave the pool's count") {
            fixture.harness.simulator.stats().connectionsClosed == 1 && metrics.lastPoolState.withLock { $0?.open } == 1
        }
        #expect(fixture.harness.simulator.stats().connectionsOpened == 2)
    }
}
