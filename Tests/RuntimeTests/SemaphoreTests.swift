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

    @Test("tryWait takes each standing signal once, then answers false; 10,000 calls with none standing put the thread to sleep at most 10 times (a timed wait of 0 ms: about once a call)")
    func tryWaitTakesStandingSignalsWithoutSleeping() throws {
        let semaphore = Semaphore()
        semaphore.signal()
        semaphore.signal()
        #expect(semaphore.tryWait())
        #expect(semaphore.tryWait())
        _ = try Self.voluntarySwitches()  // a first read, so the measured one finds everything it needs in place
        let before = try Self.voluntarySwitches()
        var taken = 0
        for _ in 0..<10_000 where semaphore.tryWait() { taken += 1 }
        let slept = try Self.voluntarySwitches() - before
        #expect(slept <= 10)
        #expect(taken == 0)
    }
}
