import Kafka
import Runtime
import Testing
@testable import Worker

/// The rounds of records Kafka refused for a reason that may pass (``OutputRetries``).
@Suite("Worker: records waiting to be produced again")
struct OutputRetriesTests {
    private static let start = MonotonicClock.now

    private static func output(_ entry: Int) -> WorkerOutput {
        WorkerOutput(record: KafkaProducerMessage(topic: "pushline.outcomes", value: [UInt8(entry)]),
                     kind: .deadLetter(reason: "test"), entry: entry)
    }

    private static func at(_ milliseconds: Int) -> MonotonicClock.Instant {
        start + .milliseconds(milliseconds)
    }

    @Test("the first refusal opens a round due 100 ms later; later ones join it; the round is taken whole, once")
    func oneRound() {
        var retries = OutputRetries()
        let opened = retries.add(Self.output(0), now: Self.at(0))
        let joined = !retries.add(Self.output(1), now: Self.at(50))
        #expect(opened)
        #expect(joined, "joins the open round")
        #expect(retries.takeDue(now: Self.at(99)) == nil)
        #expect(retries.takeDue(now: Self.at(100))?.map(\.entry) == [0, 1])
        #expect(retries.isEmpty)
        #expect(retries.takeDue(now: Self.at(10_000)) == nil, "nothing is due twice")
    }

    @Test("each round without an acknowledgement waits twice as long, up to 5 s; an acknowledgement starts again at 100 ms")
    func delaysDouble() {
        var retries = OutputRetries()
        var now = 0
        var delays: [Int] = []
        for _ in 0..<8 {
            let opened = retries.add(Self.output(0), now: Self.at(now))
            #expect(opened)
            var due = now
            while retries.takeDue(now: Self.at(due)) == nil { due += 1 }
            delays.append(due - now)
            now = due
        }
        #expect(delays == [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000])
        retries.acknowledged()
        let opened = retries.add(Self.output(0), now: Self.at(now))
        #expect(opened)
        #expect(retries.takeDue(now: Self.at(now + 99)) == nil)
        #expect(retries.takeDue(now: Self.at(now + 100)) != nil)
    }

    @Test("dropping records keeps the round's time for the rest; dropping them all leaves no round due, and the next refusal opens one")
    func dropping() {
        var retries = OutputRetries()
        _ = retries.add(Self.output(0), now: Self.at(0))
        _ = retries.add(Self.output(1), now: Self.at(0))
        retries.removeAll { $0.entry == 0 }
        #expect(retries.takeDue(now: Self.at(100))?.map(\.entry) == [1])
        _ = retries.add(Self.output(2), now: Self.at(200))
        retries.removeAll { _ in true }
        #expect(retries.isEmpty)
        #expect(retries.takeDue(now: Self.at(10_000)) == nil)
        let opened = retries.add(Self.output(3), now: Self.at(10_000))
        #expect(opened, "a new round opens")
        #expect(retries.takeDue(now: Self.at(10_199)) == nil, "the second round waits 200 ms")
        #expect(retries.takeDue(now: Self.at(10_200))?.map(\.entry) == [3])
    }
}
