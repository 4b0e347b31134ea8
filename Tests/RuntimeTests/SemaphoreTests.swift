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

    @Test("tryWait takes each standing signal once, then answers false; 10,000 calls on none never put the thread to sleep")
    func tryWaitTakesStandingSignalsWithoutSleeping() throws {
        let semaphore = Semaphore()
        semaphore.signal()
        semaphore.signal()
        #expect(semaphore.tryWait())
        #expect(semaphore.tryWait())
        let before = try Self.voluntarySwitches()
        var taken = 0
        for _ in 0..<10_000 where semaphore.tryWait() { taken += 1 }
        #expect(try Self.voluntarySwitches() - before == 0)
        #expect(taken == 0)
        semaphore.signal()
        #expect(semaphore.wait(milliseconds: 0), "a signal left standing is taken by a timed wait too")
        #expect(!semaphore.tryWait())
    }
}
