import APNsClient
import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import Synchronization
import TLS
import Testing

@Suite("APNs sender against apns-sim", .serialized, .timeLimit(.minutes(2)))
struct APNsSenderTests {
    @Test("every notification of a batch is accepted, in order, with its apns-id and an apns-unique-id")
    func acceptedBatch() async throws {
        let fixture = try SenderFixture()
        defer { fixture.stop() }
        let batch = try SenderFixture.notifications(200)
        let results = try await fixture.sender.send(batch, pool: "dev")
        #expect(results.count == 200)
        for (notification, result) in zip(batch, results) {
            #expect(result.outcome == .accepted)
            #expect(result.status == 200)
            #expect(result.id == notification.id)
            #expect(result.apnsID == notification.id)
            #expect(result.apnsUniqueID != nil)
            #expect(result.attempts == 1)
        }
        #expect(fixture.harness.simulator.inbox().count == 200)
    }

    @Test("a permanent rejection is reported with its reason and not retried")
    func permanentRejection() async throws {
        let fixture = try SenderFixture()
        defer { fixture.stop() }
        var notification = try SenderFixture.notifications(1)[0]
        notification.pushType = .voip // topic without .voip: TopicDisallowed
        let result = try #require(try await fixture.sender.send([notification], pool: "dev").first)
        #expect(result.outcome == .rejected)
        #expect(result.status == 400)
        #expect(result.reason == .topicDisallowed)
        #expect(result.attempts == 1)
    }

    @Test("a 410 carries the token's invalidation timestamp in milliseconds")
    func unregistered() async throws {
        let token = String(repeating: "ab", count: 32)
        var configuration = SimulatorConfiguration()
        configuration.devices = DeviceRegistry(acceptsUnknownTokens: true, entries: [
            .init(token: try DeviceToken(token), topic: SenderFixture.topic, environment: .sandbox, unregisteredAt: 1_767_225_600_123),
        ])
        let fixture = try SenderFixture(simulator: configuration)
        defer { fixture.stop() }
        let result = try #require(try await fixture.sender.send(SenderFixture.notifications(1, token: token), pool: "dev").first)
        #expect(result.outcome == .rejected)
        #expect(result.status == 410)
        #expect(result.reason == .unregistered)
        #expect(result.reason?.retryClass == .tokenNoLongerValid)
        #expect(result.timestamp == 1_767_225_600_123)
    }

    @Test("server errors are retried with back-off until accepted")
    func serverErrorsAreRetried() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.internalServerErrorRate = 0.3
        configuration.faults.serviceUnavailableRate = 0.2
        configuration.randomSeed = 42
        let fixture = try SenderFixture(simulator: configuration, sender: { $0.maximumAttempts = 20 })
        defer { fixture.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(100), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .accepted })
        #expect(results.contains { $0.attempts > 1 }, "with half the answers failing some must have been retried")
        #expect(fixture.harness.simulator.inbox().count == 100, "nothing accepted twice")
    }

    @Test("a 503 storm that ends: deliveries wait it out and are accepted")
    func stormThatEnds() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.serviceUnavailableRate = 1
        let fixture = try SenderFixture(simulator: configuration, sender: { $0.maximumAttempts = 50 })
        defer { fixture.stop() }
        let simulator = fixture.harness.simulator
        // Calm once 20 requests were answered 503 (counted under the lock that decides the answer):
        // the 20 first attempts, all sent before any is retried, however slow the connection's start.
        let calming = Task.detached {
            while simulator.stats().responsesByStatus[503, default: 0] < 20, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(5))
            }
            var calm = simulator.faults
            calm.serviceUnavailableRate = 0
            simulator.setFaults(calm)
        }
        defer { calming.cancel() }
        let results = try await fixture.sender.send(SenderFixture.notifications(20), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .accepted })
        #expect(results.allSatisfy { $0.attempts > 1 })
    }

    @Test("a device over its rate gets 429 and backs off alone; other devices are not slowed")
    func perDeviceThrottling() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.deviceRequestsPerSecond = 2
        let fixture = try SenderFixture(simulator: configuration, sender: { $0.maximumAttempts = 30; $0.retryBackoffMilliseconds = 200; $0.maximumRetryBackoffMilliseconds = 1000 })
        defer { fixture.stop() }
        let busy = try SenderFixture.notifications(6, token: String(repeating: "cd", count: 32), intent: "busy")
        let others = try SenderFixture.notifications(30, intent: "others")
        async let busyResults = fixture.sender.send(busy, pool: "dev")
        async let otherResults = fixture.sender.send(others, pool: "dev")
        let (throttled, calm) = try await (busyResults, otherResults)
        #expect(calm.allSatisfy { $0.outcome == .accepted && $0.attempts == 1 })
        #expect(throttled.allSatisfy { $0.outcome == .accepted })
        #expect(throttled.contains { $0.attempts > 1 })
        let slowestCalm = calm.map(\.latencyMilliseconds).max() ?? 0
        let slowestThrottled = throttled.map(\.latencyMilliseconds).max() ?? 0
        #expect(slowestCalm < slowestThrottled, "other devices finished before the throttled one")
    }

    @Test("GOAWAY mid-flight: refused streams are retried on another connection and nothing is lost")
    func goAwayMidFlight() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.goAwayEveryStreams = 25
        configuration.maxConcurrentStreams = 10 // so a connection cannot take all 300 before its GOAWAY
        let fixture = try SenderFixture(simulator: configuration, sender: { $0.maximumAttempts = 10 })
        defer { fixture.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(300), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .accepted })
        let stats = fixture.harness.simulator.stats()
        #expect(stats.connectionsOpened > 1)
        #expect((stats.goAwaysByReason["Shutdown"] ?? 0) > 1)
        // Counted per device, duplicates included: a refused stream that is retried reached APNs once.
        let perToken = fixture.harness.simulator.inbox().reduce(into: [String: Int]()) { $0[$1.token ?? "", default: 0] += 1 }
        #expect(perToken.count == 300 && perToken.values.allSatisfy { $0 == 1 }, "\(perToken.values.filter { $0 != 1 }.count) devices not notified once")
    }

    @Test("a stuck stream is cancelled at the notification's deadline and reported expired")
    func stuckStreamHitsDeadline() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.neverRespondRate = 1
        let fixture = try SenderFixture(simulator: configuration, sender: { $0.maximumHoldMilliseconds = 400 })
        defer { fixture.stop() }
        let result = try #require(try await fixture.sender.send(SenderFixture.notifications(1), pool: "dev").first)
        #expect(result.outcome == .expired)
        #expect(result.status == nil)
    }

    @Test("a send APNs has not answered ends with CancellationError when its task is cancelled, long before its deadline; the sender goes on sending")
    func cancelledSendEndsUnanswered() async throws {
        let fixture = try Self.neverAnswering()
        defer { fixture.stop() }
        let send = Task { try await fixture.sender.send(SenderFixture.notifications(3, intent: "unanswered"), pool: "dev") }
        try await Self.waitUntilUnanswered(3, at: fixture)
        send.cancel()
        // Without the cancellation the send would wait out its 600 s hold and return three expired results.
        let ended = await send.result
        #expect(throws: CancellationError.self) { try ended.get() }
        Self.answerAgain(fixture)
        let after = try await fixture.sender.send(SenderFixture.notifications(2, intent: "after"), pool: "dev")
        #expect(after.map(\.outcome) == [.accepted, .accepted])
    }

    @Test("a send cancelled while it waits for room under maximumPending is never sent: after both cancelled sends end, APNs has seen only the first")
    func cancelledWhileWaitingForRoomIsNotSent() async throws {
        let fixture = try Self.neverAnswering(maximumPending: 2)
        defer { fixture.stop() }
        let first = Task { try await fixture.sender.send(SenderFixture.notifications(2, intent: "first"), pool: "dev") }
        try await Self.waitUntilUnanswered(2, at: fixture)
        // Waits for the first's room.
        let second = Task { try await fixture.sender.send(SenderFixture.notifications(2, intent: "second"), pool: "dev") }
        second.cancel()
        first.cancel()
        let (firstEnded, secondEnded) = (await first.result, await second.result)
        #expect(throws: CancellationError.self) { try firstEnded.get() }
        #expect(throws: CancellationError.self) { try secondEnded.get() }
        Self.answerAgain(fixture)
        // Sent after anything the second could have put in the pool, so answered after it reached APNs.
        let third = try await fixture.sender.send(SenderFixture.notifications(1, intent: "third"), pool: "dev")
        #expect(third.map(\.outcome) == [.accepted])
        #expect(fixture.harness.simulator.stats().requests == 3, "the first's 2 and the third's 1")
    }

    @Test("a send in flight when the sender shuts down returns: its unanswered requests end uncertain (APNs may have them), not sent again")
    func shutdownEndsSendInFlight() async throws {
        let fixture = try Self.neverAnswering()
        defer { fixture.stop() }
        let send = Task { try await fixture.sender.send(SenderFixture.notifications(3, intent: "in-flight"), pool: "dev") }
        try await Self.waitUntilUnanswered(3, at: fixture)
        fixture.sender.shutdown()
        // Before, each was put back to be sent again on a timer of the stopped loop: the send never returned.
        let results = try await Self.result(of: send, within: 10).get()
        #expect(results.map(\.outcome) == [.uncertain, .uncertain, .uncertain])
        #expect(results.allSatisfy { $0.failureDetail == "may have reached APNs: the sender shut down with the stream open" })
        #expect(fixture.harness.simulator.stats().requests == 3, "nothing was sent again")
    }

    @Test("a send backing off before a retry when the sender shuts down returns: the delivery fails, not sent again")
    func shutdownEndsSendBackingOff() async throws {
        var simulator = SimulatorConfiguration()
        simulator.faults.tooManyRequestsRate = 1
        let metrics = RecordingMetrics()
        let fixture = try SenderFixture(simulator: simulator, metrics: metrics, sender: {
            $0.retryBackoffMilliseconds = 60_000
            $0.maximumRetryBackoffMilliseconds = 60_000
            $0.maximumHoldMilliseconds = 600_000
        })
        defer { fixture.stop() }
        let send = Task { try await fixture.sender.send(SenderFixture.notifications(1, intent: "backing-off"), pool: "dev") }
        try await DedicatedThread.run {
            // Counted by the pool as it puts the delivery on its back-off timer, after APNs answered 429.
            try Deadline.wait(.seconds(10), for: "the sender to back off after APNs answered 429") {
                metrics.retries.withLock { $0["TooManyRequests"] } == 1
            }
        }
        fixture.sender.shutdown()
        let results = try await Self.result(of: send, within: 10).get()
        #expect(results.map(\.outcome) == [.failed])
        #expect(results.first?.failureDetail == "sender shut down")
        #expect(fixture.harness.simulator.stats().requests == 1)
    }

    @Test("a send begun after the sender shut down throws SenderShutDown at once, and nothing reaches APNs")
    func sendAfterShutdownThrows() async throws {
        let fixture = try SenderFixture()
        defer { fixture.stop() }
        _ = try await fixture.sender.send(SenderFixture.notifications(1, intent: "before"), pool: "dev")
        fixture.sender.shutdown()
        let send = Task { try await fixture.sender.send(SenderFixture.notifications(2, intent: "after"), pool: "dev") }
        let ended = await Self.result(of: send, within: 10)
        #expect(throws: SenderError.shutDown) { try ended.get() }
        #expect(fixture.harness.simulator.stats().requests == 1)
    }

    /// The task's result, or the task cancelled after `seconds`: a send that would never return
    /// fails its test with `CancellationError` instead of hanging it.
    private static func result<Success: Sendable>(of task: Task<Success, any Error>, within seconds: Int) async -> Result<Success, any Error> {
        let watchdog = Task {
            try await Task.sleep(for: .seconds(seconds))
            task.cancel()
        }
        defer { watchdog.cancel() }
        return await task.result
    }

    /// A fixture whose simulator takes every request and answers none, with a 600 s hold.
    private static func neverAnswering(maximumPending: Int = SenderConfiguration().maximumPending) throws -> SenderFixture {
        var configuration = SimulatorConfiguration()
        configuration.faults.neverRespondRate = 1
        return try SenderFixture(simulator: configuration, sender: {
            $0.maximumHoldMilliseconds = 600_000
            $0.maximumPending = maximumPending
        })
    }

    private static func waitUntilUnanswered(_ count: Int, at fixture: SenderFixture) async throws {
        try await DedicatedThread.run {
            try Deadline.wait(.seconds(10), for: "the simulator to receive \(count) notifications") {
                fixture.harness.simulator.stats().neverResponded == count
            }
        }
    }

    private static func answerAgain(_ fixture: SenderFixture) {
        var answering = fixture.harness.simulator.faults
        answering.neverRespondRate = 0
        fixture.harness.simulator.setFaults(answering)
    }

    @Test("ExpiredProviderToken: a fresh token on a new connection, and the notification is retried once")
    func expiredTokenRotatesAndRetriesOnce() async throws {
        let calls = Atomic<Int>(0)
        // The first token is signed as if 70 minutes ago; later ones at the real time.
        let clock: @Sendable () -> Int64 = {
            calls.add(1, ordering: .relaxed).oldValue == 0 ? ProviderTokenSource.systemNow() - 70 * 60 : ProviderTokenSource.systemNow()
        }
        let fixture = try SenderFixture(tokenClock: clock)
        defer { fixture.stop() }
        let result = try #require(try await fixture.sender.send(SenderFixture.notifications(1), pool: "dev").first)
        #expect(result.outcome == .accepted)
        #expect(result.attempts == 2)
        #expect(fixture.harness.simulator.stats().rejectionsByReason["ExpiredProviderToken"] == 1)
        #expect(fixture.harness.simulator.stats().connectionsOpened >= 2)
    }

    @Test("with the stream limit collapsing after rejections, every request still completes")
    func streamLimitCollapse() async throws {
        var configuration = SimulatorConfiguration()
        configuration.collapseStreams = true
        let fixture = try SenderFixture(simulator: configuration)
        defer { fixture.stop() }
        var batch = try SenderFixture.notifications(100)
        for index in stride(from: 0, to: 100, by: 10) { batch[index].pushType = .voip } // rejected: TopicDisallowed
        let results = try await fixture.sender.send(batch, pool: "dev")
        #expect(results.filter { $0.outcome == .rejected }.count == 10)
        #expect(results.filter { $0.outcome == .accepted }.count == 90)
    }

    @Test("submission waits when the sender holds its maximum of pending notifications")
    func backpressure() async throws {
        var configuration = SimulatorConfiguration()
        configuration.faults.latencyMilliseconds = 50
        let fixture = try SenderFixture(simulator: configuration, sender: { $0.maximumPending = 10 })
        defer { fixture.stop() }
        let results = try await withThrowingTaskGroup(of: [DeliveryResult].self) { group in
            for batch in 0..<5 {
                group.addTask { try await fixture.sender.send(SenderFixture.notifications(10, intent: "b\(batch)"), pool: "dev") }
            }
            return try await group.reduce(into: [DeliveryResult]()) { $0 += $1 }
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0.outcome == .accepted })
        // Each batch of 10 fills the limit, so the five batches ran one after another.
        #expect((results.map(\.latencyMilliseconds).max() ?? 0) < 5 * 1000)
    }

    /// A client certificate whose subject UID is the app's bundle id, as Apple's push certificates have.
    private static func clientCertificate() throws -> (certificateFile: String, keyFile: String) {
        let certificate = try SelfSignedCertificate(commonName: "Apple Push Services: com.example.app", alternativeNames: [],
                                                    userID: SenderFixture.topic)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-cert-\(UUID().uuidString)")
        let files = try certificate.write(to: directory)
        return (files.certificateFile, files.privateKeyFile)
    }

    @Test("certificate authentication (PEM): no provider token, topics from the certificate")
    func certificateAuthentication() async throws {
        let fixture = try SenderFixture(credentials: { _ in
            let files = try Self.clientCertificate()
            return .certificate(certificateFile: files.certificateFile, privateKeyFile: files.keyFile)
        })
        defer { fixture.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(10), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .accepted })
        let wrongTopic = try #require(try await fixture.sender.send(SenderFixture.notifications(1, topic: "com.example.other"), pool: "dev").first)
        #expect(wrongTopic.outcome == .rejected)
    }

    @Test("certificate authentication (PKCS#12 with a password)")
    func pkcs12Authentication() async throws {
        let fixture = try SenderFixture(credentials: { _ in
            let files = try Self.clientCertificate()
            let bundle = files.certificateFile.replacingOccurrences(of: "certificate.pem", with: "push.p12")
            let openssl = try ExternalCommand.locate("openssl", package: "openssl")
            let exported = try ExternalCommand.run(openssl, ["pkcs12", "-export", "-in", files.certificateFile, "-inkey", files.keyFile,
                                                             "-out", bundle, "-passout", "pass:s3cret"])
            guard exported.status == 0 else { throw TestKitError("openssl pkcs12 failed: \(exported.standardError)") }
            return .pkcs12(file: bundle, password: "s3cret")
        })
        defer { fixture.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(5), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .accepted })
    }

    @Test("a PKCS#12 file opened with the wrong password is an error that names the file, not the password")
    func pkcs12WrongPassword() throws {
        let files = try Self.clientCertificate()
        let bundle = files.certificateFile.replacingOccurrences(of: "certificate.pem", with: "push.p12")
        let openssl = try ExternalCommand.locate("openssl", package: "openssl")
        _ = try ExternalCommand.run(openssl, ["pkcs12", "-export", "-in", files.certificateFile, "-inkey", files.keyFile,
                                              "-out", bundle, "-passout", "pass:s3cret"])
        let error = #expect(throws: OpenSSLError.self) {
            _ = try TLSContext.client(alpn: ["h2"], verification: .insecureNoVerification, pkcs12File: bundle, password: "not-the-password")
        }
        #expect(error?.operation.contains(bundle) == true)
        #expect(error?.description.contains("not-the-password") == false)
        #expect(error?.description.contains("s3cret") == false)
    }

    @Test("when APNs goes away and comes back, the pool reconnects and sends again")
    func reconnectsAfterServerRestart() async throws {
        let fixture = try SenderFixture(sender: { $0.reconnectBackoffMilliseconds = 20; $0.maximumAttempts = 50 })
        defer { fixture.sender.shutdown() }
        #expect(try await fixture.sender.send(SenderFixture.notifications(5, intent: "before"), pool: "dev").allSatisfy { $0.outcome == .accepted })
        fixture.harness.stop()
        let restarted = try SimulatorHarness(replacing: fixture.harness)
        defer { restarted.stop() }
        let results = try await fixture.sender.send(SenderFixture.notifications(5, intent: "after"), pool: "dev")
        #expect(results.allSatisfy { $0.outcome == .accepted })
        #expect(restarted.simulator.inbox().count == 5)
    }

    @Test("a connection that stops answering is PINGed, replaced when the PING goes unanswered, and sending goes on")
    func silentConnectionIsReplaced() async throws {
        let fixture = try SenderFixture(sender: {
            $0.idlePingMilliseconds = 200
            $0.pingTimeoutMilliseconds = 300
            $0.maximumConnections = 1
            $0.maximumHoldMilliseconds = 3000
        })
        defer { fixture.stop() }
        let relay = try relayedPool(fixture)
        defer { relay.stop() }
        let before = try await fixture.sender.send(SenderFixture.notifications(3, intent: "before"), pool: "relayed")
        #expect(before.allSatisfy { $0.outcome == .accepted })
        #expect(relay.connectionCount == 1)

        relay.silenceOpenConnections()
        // Idle for 200 ms → PING; unanswered 300 ms later → closed, and the pool opens another.
        try Deadline.wait(.seconds(10), for: "the silent connection to be replaced") { relay.connectionCount == 2 }
        let after = try await fixture.sender.send(SenderFixture.notifications(3, intent: "after"), pool: "relayed")
        #expect(after.allSatisfy { $0.outcome == .accepted })
        #expect(fixture.harness.simulator.inbox().count == 6)
    }

    @Test("a connection whose peer accepts TCP and never answers the TLS handshake is closed at the connect timeout and replaced")
    func stuckConnectIsReplaced() async throws {
        let fixture = try SenderFixture(sender: {
            $0.connectTimeoutMilliseconds = 300
            $0.maximumConnections = 1
            $0.maximumHoldMilliseconds = 8000
        })
        defer { fixture.stop() }
        let relay = try relayedPool(fixture, silentConnections: 1)
        defer { relay.stop() }
        // The first connection hangs in its handshake; closed after 300 ms, the next (after the
        // reconnect back-off) is relayed and carries the notifications.
        let results = try await fixture.sender.send(SenderFixture.notifications(3, intent: "stuck"), pool: "relayed")
        #expect(results.allSatisfy { $0.outcome == .accepted }, "\(results.map(\.outcome))")
        #expect(relay.connectionCount == 2)
        #expect(fixture.harness.simulator.inbox().count == 3)
    }

    /// A pool named `relayed` that reaches the fixture's simulator through a ``SilentRelay``.
    private func relayedPool(_ fixture: SenderFixture, silentConnections: Int = 0) throws -> SilentRelay {
        let relay = try SilentRelay(upstreamPort: fixture.harness.devicePort, silentConnections: silentConnections)
        try fixture.sender.addPool(named: "relayed", credentials: .token(ProviderTokenSource(credentials: SenderFixture.devCredentials())),
                                   environment: APNsEnvironment(host: "localhost", port: relay.port))
        return relay
    }

    @Test("an unknown pool is an error naming it")
    func unknownPool() async throws {
        let fixture = try SenderFixture()
        defer { fixture.stop() }
        await #expect(throws: SenderError.self) { try await fixture.sender.send(SenderFixture.notifications(1), pool: "nope") }
    }
}
