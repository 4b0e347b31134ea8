import Runtime
import Testing

@Suite("Back-off")
struct BackoffTests {
    let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(5))

    @Test("waits double from the initial delay and stay at the maximum once they reach it")
    func delaysDoubleToTheMaximum() {
        let delays = (0..<9).map { backoff.delay(beforeRetry: $0).wholeMilliseconds }
        #expect(delays == [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000])
    }

    @Test("a negative retry count waits the initial delay; a huge one the maximum, without overflow")
    func outOfRangeCountsAreClamped() {
        #expect(backoff.delay(beforeRetry: -3) == .milliseconds(100))
        #expect(backoff.delay(beforeRetry: .max) == .seconds(5))
    }

    @Test("a jittered wait lies between half and all of the wait without jitter, and varies")
    func jitterStaysInItsBand() {
        var random = SystemRandomNumberGenerator()
        for retry in 0..<9 {
            let ceiling = backoff.delay(beforeRetry: retry)
            let draws = (0..<50).map { _ in backoff.jitteredDelay(beforeRetry: retry, using: &random) }
            #expect(draws.allSatisfy { $0 >= ceiling / 2 && $0 <= ceiling })
            #expect(Set(draws).count > 1, "50 draws at retry \(retry) were all \(draws[0])")
        }
    }
}
