import APNsCore
import APNsSimulator
import Testing

@Suite("Connections: stream limits, GOAWAY, certificates")
struct ConnectionBehaviourTests {
    @Test("a token connection advertises 1 stream until its first valid token, then the configured limit")
    func streamLimitRisesAfterFirstValidToken() throws {
        let harness = try SimulatorHarness { $0.maxConcurrentStreams = 500 }
        #expect(harness.simulator.initialMaxConcurrentStreams == 1)
        #expect(harness.connection.maxConcurrentStreams == 1)
        #expect(try harness.push().status == 200)
        #expect(harness.connection.maxConcurrentStreams == 500)
        #expect(harness.connection.takeEffects() == [.setMaxConcurrentStreams(500)])
    }

    @Test("the limit rises with a valid token even when the push is then rejected")
    func validTokenRaisesLimitDespiteRejection() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push(body: []).reason == "PayloadEmpty")
        #expect(harness.connection.maxConcurrentStreams == 1000)
    }

    @Test("the limit stays at 1 while authentication fails")
    func limitStaysAtOneWhileAuthFails() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push(["authorization": nil]).status == 403)
        #expect(harness.connection.maxConcurrentStreams == 1)
        #expect(harness.connection.takeEffects().isEmpty)
    }

    @Test("a certificate connection starts at the configured limit")
    func certificateConnectionStartsAtLimit() throws {
        let harness = try SimulatorHarness(certificateTopics: [Fixture.topic])
        #expect(harness.connection.maxConcurrentStreams == 1000)
    }

    @Test("with collapseStreams a rejection drops the limit to 1 and an acceptance restores it")
    func collapseStreams() throws {
        let harness = try SimulatorHarness { $0.collapseStreams = true }
        #expect(try harness.push().status == 200)
        _ = harness.connection.takeEffects()
        #expect(try harness.push(token: "zz").status == 400)
        #expect(harness.connection.takeEffects() == [.setMaxConcurrentStreams(1)])
        #expect(try harness.push(token: "zz").status == 400)
        #expect(harness.connection.takeEffects().isEmpty)
        #expect(try harness.push().status == 200)
        #expect(harness.connection.takeEffects() == [.setMaxConcurrentStreams(1000)])
    }

    @Test("without collapseStreams a rejection leaves the limit alone")
    func noCollapseByDefault() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push().status == 200)
        _ = harness.connection.takeEffects()
        #expect(try harness.push(token: "zz").status == 400)
        #expect(harness.connection.takeEffects().isEmpty)
        #expect(harness.connection.maxConcurrentStreams == 1000)
    }

    @Test("a connection that keeps failing authentication gets GOAWAY with the reason, once")
    func goAwayAfterRepeatedAuthFailures() throws {
        let harness = try SimulatorHarness { $0.authFailuresBeforeGoAway = 3 }
        for _ in 0..<2 { _ = try harness.push(["authorization": nil]) }
        #expect(harness.connection.takeEffects().isEmpty)
        _ = try harness.push(["authorization": nil])
        #expect(harness.connection.takeEffects() == [.goAway(reason: "MissingProviderToken", errorCode: 0)])
        _ = try harness.push(["authorization": nil])
        #expect(harness.connection.takeEffects().isEmpty)
        #expect(harness.simulator.stats().goAwaysByReason == ["MissingProviderToken": 1])
    }

    @Test("a successful authentication resets the failure count")
    func authSuccessResetsFailures() throws {
        let harness = try SimulatorHarness { $0.authFailuresBeforeGoAway = 2 }
        _ = try harness.push(["authorization": nil])
        #expect(try harness.push().status == 200)
        _ = try harness.push(["authorization": nil])
        #expect(!harness.connection.takeEffects().contains { if case .goAway = $0 { true } else { false } })
    }

    @Test("the GOAWAY debug data is {\"reason\":…}, the same JSON as a rejection body")
    func goAwayDebugData() {
        #expect(ConnectionEffect.goAwayDebugData(reason: "Shutdown") == Array(#"{"reason":"Shutdown"}"#.utf8))
    }

    @Test("takeEffects drains the queue")
    func takeEffectsDrains() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push()
        #expect(!harness.connection.takeEffects().isEmpty)
        #expect(harness.connection.takeEffects().isEmpty)
    }

    @Test("a certificate connection ignores authorization and uses its only topic when apns-topic is absent")
    func certificateConnectionDefaultsTopic() throws {
        let harness = try SimulatorHarness(certificateTopics: [Fixture.topic])
        let response = try harness.push(["authorization": "bearer garbage", "apns-topic": nil])
        #expect(response.status == 200)
        #expect(harness.simulator.inbox().first?.topic == Fixture.topic)
    }

    @Test("a certificate with several topics needs apns-topic: 400 MissingTopic")
    func multiTopicCertificateNeedsTopic() throws {
        let harness = try SimulatorHarness(certificateTopics: [Fixture.topic, Fixture.topic + ".voip"])
        #expect(try harness.push(["apns-topic": nil]).reason == "MissingTopic")
    }

    @Test("a topic the certificate does not carry is 400 TopicDisallowed")
    func certificateTopicDisallowed() throws {
        let harness = try SimulatorHarness(certificateTopics: [Fixture.topic])
        #expect(try harness.push(["apns-topic": "com.example.other"]).reason == "TopicDisallowed")
    }

    @Test("opened and closed connections are counted")
    func connectionsAreCounted() throws {
        let harness = try SimulatorHarness()
        harness.simulator.connectionClosed(harness.connection)
        #expect(harness.simulator.stats().connectionsOpened == 1)
        #expect(harness.simulator.stats().connectionsClosed == 1)
    }
}
