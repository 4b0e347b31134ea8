import APNsClient
import Testing

@Suite("Pool circuit (state machine)")
struct PoolCircuitTests {
    private static let second: UInt64 = 1_000_000_000

    private func circuit(threshold: Int = 3, window: Int = 5, probe: Int = 1_000, maximumProbe: Int = 8_000) -> PoolCircuit {
        var configuration = PoolCircuit.Configuration()
        configuration.threshold = threshold
        configuration.window = window
        configuration.probeIntervalMilliseconds = probe
        configuration.maximumProbeIntervalMilliseconds = maximumProbe
        return PoolCircuit(configuration: configuration)
    }

    @Test("it opens when the outages among the last answers reach the threshold, naming the last cause")
    func opensAtThreshold() {
        var random = SystemRandomNumberGenerator()
        var circuit = circuit()
        #expect(circuit.record(.outage(cause: "ServiceUnavailable"), now: 0, using: &random) == nil)
        #expect(circuit.record(.healthy, now: 0, using: &random) == nil)
        #expect(circuit.record(.outage(cause: "ServiceUnavailable"), now: 0, using: &random) == nil)
        #expect(circuit.state == .closed)
        #expect(circuit.mayDispatch(now: 0))
        let transition = circuit.record(.outage(cause: "timeout"), now: 0, using: &random)
        #expect(transition?.state == .open)
        #expect(transition?.cause == "timeout")
        #expect(circuit.state == .open)
        #expect(circuit.needsProbe)
    }

    @Test("outages that slide out of the window no longer count")
    func windowSlides() {
        var random = SystemRandomNumberGenerator()
        var circuit = circuit(threshold: 3, window: 4)
        for answer: PoolCircuit.Answer in [.outage(cause: "a"), .outage(cause: "a"), .healthy, .healthy, .healthy, .outage(cause: "a")] {
            #expect(circuit.record(answer, now: 0, using: &random) == nil)
        }
        #expect(circuit.state == .closed, "two outages among the last four")
    }

    @Test("open: no request until the first probe is due, then exactly one at a time")
    func probesOneAtATime() {
        var random = SystemRandomNumberGenerator()
        var circuit = circuit(threshold: 1, window: 1)
        _ = circuit.record(.outage(cause: "InternalServerError"), now: 0, using: &random)
        #expect(!circuit.mayDispatch(now: 0))
        // Jittered in [interval / 2, interval].
        #expect(circuit.nextProbeAt >= Self.second / 2 && circuit.nextProbeAt <= Self.second)
        #expect(circuit.mayDispatch(now: Self.second))
        circuit.probeSent()
        #expect(!circuit.mayDispatch(now: 2 * Self.second), "one probe at a time")
    }

    @Test("answers of requests sent before it opened do not close it; only a probe does")
    func onlyProbesClose() {
        var random = SystemRandomNumberGenerator()
        var circuit = circuit(threshold: 1, window: 1)
        _ = circuit.record(.outage(cause: "ServiceUnavailable"), now: 0, using: &random)
        #expect(circuit.record(.healthy, now: 1, using: &random) == nil)
        #expect(circuit.state == .open)
        circuit.probeSent()
        let transition = circuit.record(.healthy, now: 2 * Self.second, probe: true, using: &random)
        #expect(transition?.state == .closed)
        #expect(circuit.mayDispatch(now: 2 * Self.second))
        #expect(circuit.record(.outage(cause: "ServiceUnavailable"), now: 0, using: &random)?.state == .open,
                "a closed circuit starts counting afresh")
    }

    @Test("failed probes space the next ones out, doubling up to the maximum")
    func probeIntervalsGrow() {
        var random = SystemRandomNumberGenerator()
        var circuit = circuit(threshold: 1, window: 1, probe: 1_000, maximumProbe: 4_000)
        _ = circuit.record(.outage(cause: "ServiceUnavailable"), now: 0, using: &random)
        var now = circuit.nextProbeAt
        var ceilings: [UInt64] = []
        for _ in 0..<5 {
            circuit.probeSent()
            #expect(circuit.record(.outage(cause: "ServiceUnavailable"), now: now, probe: true, using: &random) == nil)
            let delay = circuit.nextProbeAt - now
            ceilings.append(delay)
            now = circuit.nextProbeAt
        }
        let milliseconds = ceilings.map { $0 / 1_000_000 }
        #expect((1_000...2_000).contains(milliseconds[0]))
        #expect((2_000...4_000).contains(milliseconds[1]))
        #expect(milliseconds[2...].allSatisfy { (2_000...4_000).contains($0) }, "capped at 4 s: \(milliseconds)")
        #expect(circuit.state == .open)
    }

    @Test("an open circuit with nothing to probe with closes, but not while its probe is out")
    func closesWithoutProbe() {
        var random = SystemRandomNumberGenerator()
        var circuit = circuit(threshold: 1, window: 1)
        #expect(circuit.closeWithoutProbe() == nil, "closed already")
        _ = circuit.record(.outage(cause: "connect"), now: 0, using: &random)
        circuit.probeSent()
        #expect(circuit.closeWithoutProbe() == nil)
        circuit.probeAbandoned(now: 0, using: &random)
        #expect(circuit.closeWithoutProbe()?.state == .closed)
        #expect(circuit.mayDispatch(now: 0))
    }

    @Test("an abandoned probe counts as a failed one")
    func abandonedProbe() {
        var random = SystemRandomNumberGenerator()
        var circuit = circuit(threshold: 1, window: 1)
        _ = circuit.record(.outage(cause: "connect"), now: 0, using: &random)
        circuit.probeSent()
        circuit.probeAbandoned(now: Self.second, using: &random)
        #expect(!circuit.isProbing)
        #expect(circuit.nextProbeAt >= 2 * Self.second, "the second interval is 1–2 s")
        #expect(circuit.state == .open)
    }
}
