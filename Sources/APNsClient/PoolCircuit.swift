import Runtime

/// A pool's circuit breaker: a pure state machine, fed the pool's answers and the clock, that says
/// whether the pool may dispatch. No I/O, no timers: the pool asks it and arms its own timers.
///
/// Closed, it keeps the last `window` answered attempts; when `threshold` of them are outage-class
/// (HTTP 5xx, connection failures, request timeouts) it opens. Open, it lets one request through
/// at a time — a probe — at growing, jittered intervals; a probe answered in a way that is not an
/// outage (2xx or 4xx) closes it, anything else spaces the next probe further out.
public struct PoolCircuit: Sendable {
    /// When a circuit opens and how it probes.
    public struct Configuration: Sendable, Equatable {
        /// Outage-class answers among the last `window` that open the circuit.
        public var threshold = 16
        public var window = 20
        /// The first probe's delay after the circuit opens; doubled after each failed probe, up to
        /// `maximumProbeIntervalMilliseconds`, each drawn in [interval / 2, interval] (jitter).
        public var probeIntervalMilliseconds = 1_000
        public var maximumProbeIntervalMilliseconds = 5_000

        public init() {}
    }

    /// How an attempt ended, as the circuit sees it.
    public enum Answer: Sendable, Equatable {
        /// APNs answered and was not out: 2xx, or a 4xx about the request.
        case healthy
        /// An outage-class failure, and why (`ServiceUnavailable`, `connection`, `timeout`…).
        case outage(cause: String)
    }

    public enum State: String, Sendable, Equatable {
        case closed
        case open
    }

    /// What changed after an answer: the new state and its cause.
    public struct Transition: Sendable, Equatable {
        public var state: State
        public var cause: String
    }

    public let configuration: Configuration
    public private(set) var state = State.closed
    /// Closed: the last answers, true for an outage, oldest first (a ring of `window` places).
    private var recent: [Bool]
    private var next = 0
    private var outages = 0
    /// Open: whether the probe is out, how many probes failed, and when (monotonic ns) the next may go.
    public private(set) var isProbing = false
    private var failedProbes = 0
    public private(set) var nextProbeAt: UInt64 = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
        recent = Array(repeating: false, count: max(configuration.window, 1))
    }

    /// Whether a request may go now: every request while closed, one probe when open and due.
    public func mayDispatch(now: UInt64) -> Bool {
        state == .closed || (!isProbing && now >= nextProbeAt)
    }

    /// Whether the next request dispatched is a probe (the circuit is open).
    public var needsProbe: Bool { state == .open }

    /// A probe left; no other request goes until it ends (``record(_:now:probe:using:)``).
    public mutating func probeSent() {
        isProbing = true
    }

    /// Records how an attempt ended at `now` (`probe`: it was the circuit's probe); returns the
    /// transition it caused, if any.
    public mutating func record(_ answer: Answer, now: UInt64, probe: Bool = false,
                                using generator: inout some RandomNumberGenerator) -> Transition? {
        switch state {
        case .closed:
            let isOutage = answer != .healthy
            if recent[next] { outages -= 1 }
            recent[next] = isOutage
            if isOutage { outages += 1 }
            next = (next + 1) % recent.count
            guard case .outage(let cause) = answer, outages >= configuration.threshold else { return nil }
            state = .open
            failedProbes = 0
            isProbing = false
            scheduleProbe(now: now, using: &generator)
            return Transition(state: .open, cause: cause)
        case .open:
            // Answers of requests sent before it opened say nothing new: only the probe decides.
            guard probe else { return nil }
            isProbing = false
            if case .outage = answer {
                failedProbes += 1
                scheduleProbe(now: now, using: &generator)
                return nil
            }
            return closeWithoutProbe().map { Transition(state: $0.state, cause: "probe answered") }
        }
    }

    /// Closes an open circuit that has nothing left to probe with (every held delivery ended):
    /// only new work can tell whether APNs is back, and an open circuit keeps new work away.
    public mutating func closeWithoutProbe() -> Transition? {
        guard state == .open, !isProbing else { return nil }
        state = .closed
        recent = Array(repeating: false, count: recent.count)
        outages = 0
        next = 0
        return Transition(state: .closed, cause: "nothing left to probe")
    }

    /// The probe ended without telling anything (its delivery finished otherwise): the next one is
    /// spaced as after a failed probe.
    public mutating func probeAbandoned(now: UInt64, using generator: inout some RandomNumberGenerator) {
        guard state == .open, isProbing else { return }
        isProbing = false
        failedProbes += 1
        scheduleProbe(now: now, using: &generator)
    }

    private mutating func scheduleProbe(now: UInt64, using generator: inout some RandomNumberGenerator) {
        let backoff = Backoff(initial: .milliseconds(configuration.probeIntervalMilliseconds),
                              maximum: .milliseconds(configuration.maximumProbeIntervalMilliseconds))
        nextProbeAt = now + UInt64(backoff.jitteredDelay(beforeRetry: failedProbes, using: &generator).wholeNanoseconds)
    }
}
