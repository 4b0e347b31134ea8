import Foundation
import Runtime
import Testing

@Suite("Semaphore")
struct SemaphoreTests {
    /// How often the calling thread has given up the CPU of its own accord (slept) so far, as
    /// Linux counts it (`voluntary_ctxt_switches` in /proc/thread-self/status).
    static func voluntarySwitches() throws -> Int {
        let status = try String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
    }

    /// How often the calling thread slept while `body` ran; a first read of the count before, so
    /// the measured ones find everything they need in place.
    static func sleeps(during body: () -> Void) throws -> Int {
        _ = try voluntarySwitches()
        let before = try voluntarySwitches()
        body()
        return try voluntarySwitches() - before
    }

    @Test("tryWait takes each standing signal once, then answers false; 10,000 calls with none standing put the thread to sleep at most 10 times")
    func tryWaitTakesStandingSignalsWithoutSleeping() throws {
        let semaphore = Semaphore()
        semaphore.signal()
        semaphore.signal()
        #expect(semaphore.tryWait())
        #expect(semaphore.tryWait())
        var taken = 0
        let slept = try Self.sleeps {
            for _ in 0..<10_000 where semaphore.tryWait() { taken += 1 }
        }
        #expect(slept <= 10)
        #expect(taken == 0)
    }

    @Test("a timed wait of 0 ms or less takes a standing signal, and with none answers false without waiting: 10,000 calls sleep at most 10 times")
    func timedWaitOfNoTimeDoesNotSleep() throws {
        let semaphore = Semaphore()
        semaphore.signal()
        #expect(semaphore.wait(milliseconds: 0))
        var taken = 0
        let slept = try Self.sleeps {
            for milliseconds in [0, -1] {
                for _ in 0..<5_000 where semaphore.wait(milliseconds: milliseconds) { taken += 1 }
            }
        }
        #expect(slept <= 10)
        #expect(taken == 0)
    }
}
