import Pipeline
import Runtime
import PushlineConfiguration
import Testing
@testable import Worker

/// How the worker holds throttled deliveries: what a throttle matches waits, the rest goes on; the
/// buckets are asked for what waits, at most once per round trip and never before they said; what
/// they grant goes oldest first; nothing is dropped.
@Suite("ThrottleGate")
struct ThrottleGateTests {
    private let start = MonotonicClock.now

    private func at(_ milliseconds: Int) -> MonotonicClock.Instant {
        start + .milliseconds(milliseconds)
    }

    /// Deliveries are strings `<campaign>-<n>`; the throttle counts campaign `spring` at 10/s.
    private func gate() -> ThrottleGate<String> {
        ThrottleGate(throttles: [ThrottleConfiguration(scope: .campaign, value: "spring", rate: 10, burst: 2)]) { throttle, element in
            element.hasPrefix(throttle.value + "-")
        }
    }

    @Test("deliveries a throttle matches are held, the others go on in order")
    func holdsOnlyMatches() {
        var gate = gate()
        let free = gate.admit(["spring-0", "other-0", "spring-1", "other-1"], now: at(0))
        #expect(free == ["other-0", "other-1"])
        #expect(gate.heldCount == 2)
        #expect(gate.heldByThrottle == [2])
    }

    @Test("the bucket is asked for every held delivery, once per round trip; the grant goes oldest first")
    func askAndRelease() {
        var gate = gate()
        _ = gate.admit(["spring-0", "spring-1", "spring-2"], now: at(0))
        let requests = gate.requests(now: at(0))
        #expect(requests == [ThrottleRequest(bucket: "campaign:spring", rate: 10, burst: 2, wanted: 3)])
        #expect(gate.requests(now: at(1)).isEmpty, "a round trip is out")
        let released = gate.granted([ThrottleGrant(granted: 2, retryAfterMilliseconds: 100)], now: at(2))
        #expect(released == ["spring-0", "spring-1"])
        #expect(gate.heldCount == 1)
        #expect(gate.requests(now: at(101)).isEmpty, "the bucket said 100 ms")
        #expect(gate.requests(now: at(102)).map(\.wanted) == [1])
        #expect(gate.granted([ThrottleGrant(granted: 1, retryAfterMilliseconds: 0)], now: at(103)) == ["spring-2"])
        #expect(gate.requests(now: at(1_000)).isEmpty, "nothing waits")
    }

    @Test("asks are at least the minimum interval apart, whatever the bucket says")
    func minimumInterval() {
        var gate = gate()
        _ = gate.admit(["spring-0", "spring-1"], now: at(0))
        _ = gate.requests(now: at(0))
        _ = gate.granted([ThrottleGrant(granted: 1, retryAfterMilliseconds: 1)], now: at(0))
        #expect(gate.requests(now: at(9)).isEmpty)
        #expect(gate.requests(now: at(10)).count == 1)
    }

    @Test("a failed round trip drops nothing: the same deliveries are asked for again")
    func failureKeepsHeld() {
        var gate = gate()
        _ = gate.admit(["spring-0"], now: at(0))
        _ = gate.requests(now: at(0))
        gate.failed(retryAt: at(500))
        #expect(gate.heldCount == 1)
        #expect(gate.requests(now: at(499)).isEmpty)
        #expect(gate.requests(now: at(500)).map(\.wanted) == [1])
    }

    @Test("deliveries of handed-back messages leave; a grant for more than is left releases what is left")
    func handBack() {
        var gate = gate()
        _ = gate.admit(["spring-0", "spring-1"], now: at(0))
        _ = gate.requests(now: at(0))
        gate.removeAll { $0 == "spring-0" }
        #expect(gate.granted([ThrottleGrant(granted: 2, retryAfterMilliseconds: 0)], now: at(1)) == ["spring-1"])
        #expect(gate.heldCount == 0)
    }

    @Test("without throttles everything goes on and nothing is asked")
    func noThrottles() {
        var gate = ThrottleGate<String>(throttles: []) { _, _ in true }
        #expect(gate.admit(["a", "b"], now: at(0)) == ["a", "b"])
        #expect(gate.requests(now: at(0)).isEmpty)
    }
}
