import Runtime
import Testing
@testable import Worker

/// When the Redis stage refreshes its liveness key and renews its `pending` claims: the key every
/// third of the owner TTL, the claims every third of the pending TTL, each from its last success.
@Suite("KeepAliveSchedule")
struct KeepAliveScheduleTests {
    private let start = MonotonicClock.now

    private func at(_ milliseconds: Int) -> MonotonicClock.Instant {
        start + .milliseconds(milliseconds)
    }

    @Test("the liveness key is due at once; claims only a third of the pending TTL after the start")
    func livenessFirst() {
        let schedule = KeepAliveSchedule(ownerTTL: .seconds(3), pendingTTL: .seconds(60), start: start)
        #expect(schedule.due(at: at(0)) == false, "liveness due, claims not")
        #expect(schedule.livenessMilliseconds == 3000)
    }

    @Test("between renewals of the claims the liveness key alone is due every third of the owner TTL")
    func livenessEveryThirdOfOwnerTTL() {
        var schedule = KeepAliveSchedule(ownerTTL: .seconds(3), pendingTTL: .seconds(60), start: start)
        schedule.done(renewing: false, at: at(0))
        #expect(schedule.due(at: at(999)) == nil)
        #expect(schedule.due(at: at(1000)) == false)
        schedule.done(renewing: false, at: at(1000))
        #expect(schedule.next == at(2000))
    }

    @Test("the claims are renewed every third of the pending TTL, with the liveness key")
    func claimsEveryThirdOfPendingTTL() {
        var schedule = KeepAliveSchedule(ownerTTL: .seconds(3), pendingTTL: .seconds(60), start: start)
        for second in 0..<20 {
            #expect(schedule.due(at: at(second * 1000)) == false, "second \(second): liveness only")
            schedule.done(renewing: false, at: at(second * 1000))
        }
        #expect(schedule.due(at: at(20_000)) == true)
        schedule.done(renewing: true, at: at(20_000))
        #expect(schedule.due(at: at(21_000)) == false)
        #expect(schedule.due(at: at(39_999)) == false)
        #expect(schedule.due(at: at(40_000)) == true)
    }

    @Test("a pending TTL shorter than the owner TTL renews the claims more often than the key")
    func shortPendingTTL() {
        var schedule = KeepAliveSchedule(ownerTTL: .seconds(3), pendingTTL: .milliseconds(900), start: start)
        schedule.done(renewing: false, at: at(0))
        #expect(schedule.next == at(300))
        #expect(schedule.due(at: at(300)) == true)
        schedule.done(renewing: true, at: at(300))
        #expect(schedule.next == at(600))
    }

    @Test("a keep-alive that failed stays due")
    func failureStaysDue() {
        let schedule = KeepAliveSchedule(ownerTTL: .seconds(3), pendingTTL: .seconds(60), start: start)
        #expect(schedule.due(at: at(0)) == false)
        #expect(schedule.due(at: at(5)) == false, "not marked done: still due")
    }
}
