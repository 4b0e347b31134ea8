import APNsCore
import APNsSimulator
import Testing

@Suite("Fault injection")
struct FaultInjectionTests {
    private func harness(seed: UInt64 = 7, _ set: (inout SimulatorFaults) -> Void) throws -> SimulatorHarness {
        try SimulatorHarness {
            $0.randomSeed = seed
            set(&$0.faults)
        }
    }

    private func delay(_ action: SimulatorAction) -> Int? {
        if case .respond(_, let delay) = action { delay } else { nil }
    }

    private func validRequest(_ harness: SimulatorHarness) throws -> SimulatorRequest {
        SimulatorRequest(method: "POST", path: "/3/device/\(Fixture.deviceToken)", headers: try harness.pushHeaders(),
                         body: Fixture.payload)
    }

    @Test("no faults by default: no delay, no errors")
    func noFaultsByDefault() throws {
        let harness = try SimulatorHarness()
        #expect(delay(harness.simulator.handle(try validRequest(harness), on: harness.connection)) == 0)
    }

    @Test("latency is the fixed delay plus a jitter within bounds, the same for the same seed")
    func latencyWithJitter() throws {
        func delays(seed: UInt64) throws -> [Int] {
            let harness = try harness(seed: seed) { $0.latencyMilliseconds = 40; $0.jitterMilliseconds = 10 }
            return try (0..<50).map { _ in try #require(delay(harness.simulator.handle(try validRequest(harness), on: harness.connection))) }
        }
        let first = try delays(seed: 1)
        #expect(first.allSatisfy { (40...50).contains($0) })
        #expect(Set(first).count > 1)
        #expect(try delays(seed: 1) == first)
        #expect(try delays(seed: 2) != first)
    }

    @Test("injected errors answer pushes that would be accepted, each with its status and reason", arguments: [
        (\SimulatorFaults.tooManyRequestsRate, 429, "TooManyRequests"),
        (\SimulatorFaults.internalServerErrorRate, 500, "InternalServerError"),
        (\SimulatorFaults.serviceUnavailableRate, 503, "ServiceUnavailable"),
        (\SimulatorFaults.shutdownRate, 503, "Shutdown"),
    ] as [(WritableKeyPath<SimulatorFaults, Double> & Sendable, Int, String)])
    func injectedError(rate: WritableKeyPath<SimulatorFaults, Double> & Sendable, status: Int, reason: String) throws {
        let harness = try harness { $0[keyPath: rate] = 1 }
        let response = try harness.push()
        #expect(response.status == status)
        #expect(response.reason == reason)
        #expect(harness.simulator.inbox().isEmpty)
    }

    @Test("injected errors do not hide a request's own rejection")
    func injectedErrorsOnlyReplaceAcceptances() throws {
        let harness = try harness { $0.internalServerErrorRate = 1 }
        #expect(try harness.push(body: []).reason == "PayloadEmpty")
    }

    @Test("error rates mix in proportion, reproducibly for a seed")
    func errorRatesMix() throws {
        func reasons(seed: UInt64) throws -> [String] {
            let harness = try harness(seed: seed) { $0.internalServerErrorRate = 0.25; $0.shutdownRate = 0.25 }
            return try (0..<400).map { _ in try harness.push().reason ?? "accepted" }
        }
        let first = try reasons(seed: 3)
        let counts = Dictionary(first.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(Set(counts.keys) == ["accepted", "InternalServerError", "Shutdown"])
        #expect((120...280).contains(counts["accepted"] ?? 0))
        #expect(try reasons(seed: 3) == first)
    }

    @Test("a stuck stream is never answered, and counted")
    func neverRespond() throws {
        let harness = try harness { $0.neverRespondRate = 1 }
        #expect(harness.simulator.handle(try validRequest(harness), on: harness.connection) == .neverRespond)
        #expect(harness.simulator.stats().neverResponded == 1)
    }

    @Test("a connection reset drops the connection, and is counted")
    func resetConnection() throws {
        let harness = try harness { $0.resetConnectionRate = 1 }
        #expect(harness.simulator.handle(try validRequest(harness), on: harness.connection) == .resetConnection)
        #expect(harness.simulator.stats().connectionResets == 1)
    }

    @Test("GOAWAY every N streams: the N-th stream is answered, then GOAWAY Shutdown")
    func goAwayEveryNStreams() throws {
        let harness = try harness { $0.goAwayEveryStreams = 3 }
        for _ in 0..<2 { #expect(try harness.push().status == 200) }
        _ = harness.connection.takeEffects()
        #expect(try harness.push().status == 200)
        #expect(harness.connection.takeEffects() == [.goAway(reason: "Shutdown", errorCode: 0)])
    }

    @Test("the stream-limit fault: from its next request a connection advertises the fault's limit, and the configured one once it is off")
    func streamLimitFault() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push().status == 200)
        #expect(harness.connection.takeEffects() == [.setMaxConcurrentStreams(1000)])
        harness.simulator.updateFaults { faults in
            var collapsed = faults
            collapsed.maxConcurrentStreams = 1
            return collapsed
        }
        #expect(try harness.push().status == 200)
        #expect(harness.connection.takeEffects() == [.setMaxConcurrentStreams(1)])
        #expect(try harness.push().status == 200)
        #expect(harness.connection.takeEffects().isEmpty, "the limit is announced once, not on every request")
        harness.simulator.setFaults(SimulatorFaults())
        #expect(try harness.push().status == 200)
        #expect(harness.connection.takeEffects() == [.setMaxConcurrentStreams(1000)])
    }

    @Test("above the per-device rate a token gets 429 TooManyRequests; other tokens and the next second are fine")
    func perDeviceRateLimit() throws {
        let harness = try harness { $0.deviceRequestsPerSecond = 2 }
        #expect(try harness.push().status == 200)
        #expect(try harness.push().status == 200)
        let limited = try harness.push()
        #expect(limited.status == 429)
        #expect(limited.reason == "TooManyRequests")
        #expect(try harness.push(token: Fixture.otherDeviceToken).status == 200)
        harness.clock.advance(milliseconds: 1000)
        #expect(try harness.push().status == 200)
    }

    @Test("faults change at run time")
    func faultsChangeAtRunTime() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push().status == 200)
        var faults = SimulatorFaults()
        faults.serviceUnavailableRate = 1
        harness.simulator.setFaults(faults)
        #expect(try harness.push().reason == "ServiceUnavailable")
        #expect(harness.simulator.faults == faults)
    }

    @Test("a faults document changes only the settings it names")
    func faultsDocumentIsPartial() throws {
        var start = SimulatorFaults()
        start.latencyMilliseconds = 5
        let updated = try start.applying(json: Array(#"{"shutdown_rate": 0.5, "goaway_every_streams": 10, "max_concurrent_streams": 1}"#.utf8),
                                        source: "test")
        #expect(updated.latencyMilliseconds == 5)
        #expect(updated.maxConcurrentStreams == 1)
        #expect(updated.shutdownRate == 0.5)
        #expect(updated.goAwayEveryStreams == 10)
    }

    @Test("the faults JSON reads back into the same faults")
    func faultsJSONRoundTrips() throws {
        var faults = SimulatorFaults()
        faults.jitterMilliseconds = 3
        faults.neverRespondRate = 0.125
        faults.deviceRequestsPerSecond = 9
        var bytes: [UInt8] = []
        JSONWriter.appendValue(faults.json, to: &bytes)
        #expect(try SimulatorFaults().applying(json: bytes, source: "test") == faults)
    }

    @Test("a bad faults document is an error naming the key", arguments: [
        (#"{"shutdown_rate": 1.5}"#, "shutdown_rate"),
        (#"{"latency_ms": -1}"#, "latency_ms"),
        (#"{"latency_ms": "10"}"#, "latency_ms"),
        (#"{"slow": 1}"#, "slow"),
    ])
    func badFaultsDocument(document: String, key: String) {
        let error = #expect(throws: SimulatorConfigurationError.self) {
            try SimulatorFaults().applying(json: Array(document.utf8), source: "test")
        }
        #expect(error?.key == key)
    }

    @Test("a command-line setting name=value changes one fault, checked like JSON")
    func faultSettingFromCommandLine() throws {
        let faults = try SimulatorFaults().applying(setting: "latency_ms=40", source: "--fault")
            .applying(setting: "shutdown_rate=0.25", source: "--fault")
        #expect(faults.latencyMilliseconds == 40)
        #expect(faults.shutdownRate == 0.25)
        let error = #expect(throws: SimulatorConfigurationError.self) {
            try SimulatorFaults().applying(setting: "latency_ms=fast", source: "--fault")
        }
        #expect(error?.key == "latency_ms")
        #expect(throws: SimulatorConfigurationError.self) { try SimulatorFaults().applying(setting: "slow=1", source: "--fault") }
        #expect(SimulatorFaults.settingNames.contains("device_requests_per_second"))
    }

    @Test("error rates that add up to more than 1 are refused")
    func errorRatesOverOne() {
        #expect(throws: SimulatorConfigurationError.self) {
            try SimulatorFaults().applying(json: Array(#"{"shutdown_rate": 0.6, "too_many_requests_rate": 0.6}"#.utf8), source: "test")
        }
    }
}
