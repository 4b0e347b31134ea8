import Runtime
import Testing

@Suite("Clocks and deadlines")
struct ClockTests {
    @Test("a deadline on a test clock passes exactly when the clock reaches it, and counts down in milliseconds rounded up")
    func deadlineFollowsTheInjectedClock() {
        let time = TestClock()
        let deadline = Deadline(after: .milliseconds(250), clock: time.clock)
        #expect(!deadline.hasPassed)
        #expect(deadline.remainingMilliseconds == 250)
        time.advance(by: .microseconds(249_500))
        #expect(!deadline.hasPassed)
        #expect(deadline.remainingMilliseconds == 1)
        #expect(deadline.remaining == .microseconds(500))
        time.advance(by: .microseconds(500))
        #expect(deadline.hasPassed)
        #expect(deadline.remainingMilliseconds == 0)
        #expect(deadline.remaining == .zero)
    }

    @Test("monotonic instants add, subtract and compare as durations")
    func instantArithmetic() {
        let start = MonotonicClock.Instant(nanoseconds: 5_000_000_000)
        let later = start + .milliseconds(1500)
        #expect(later.nanoseconds == 6_500_000_000)
        #expect(later - start == .milliseconds(1500))
        #expect(start.duration(to: later) == .milliseconds(1500))
        #expect(later.duration(to: start) == .milliseconds(-1500))
        #expect(start < later)
        #expect(later - .seconds(10) == MonotonicClock.Instant(nanoseconds: 0), "an instant stops at the clock's start")
    }

    @Test("durations convert to whole milliseconds rounded down, and to C timeouts clamped to Int32 and never negative")
    func durationToMilliseconds() {
        #expect(Duration.microseconds(1999).wholeMilliseconds == 1)
        #expect(Duration.seconds(90).wholeMilliseconds == 90_000)
        #expect(Duration.seconds(10_000_000).timeoutMilliseconds == Int32.max)
        #expect(Duration.milliseconds(-5).timeoutMilliseconds == 0)
    }

    @Test("the system clocks move forward; the wall clock formats RFC 3339 UTC with milliseconds")
    func systemClocks() {
        let first = MonotonicClock.now
        let elapsed = MonotonicClock.system.measure { _ = (0..<1000).reduce(0, +) }
        #expect(MonotonicClock.now >= first)
        #expect(elapsed >= .zero)
        let epoch = WallClock(readingNanosecondsSinceEpoch: { 1_764_577_412_123_456_789 })
        #expect(epoch.utcTimestamp() == "2025-12-01T08:23:32.123Z")
        #expect(epoch.millisecondsSinceEpoch() == 1_764_577_412_123)
        #expect(WallClock.millisecondsSinceEpoch() > 1_764_577_412_123)
    }
}
