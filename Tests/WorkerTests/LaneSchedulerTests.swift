import Testing
@testable import Worker

/// The deficit round robin the worker takes its batches with: shares by weight under load, a lane
/// with little work served at once, order kept within a lane, no credit for a lane without work.
@Suite("LaneScheduler")
struct LaneSchedulerTests {
    /// Lane 0 `critical` (8), 1 `transactional` (4), 2 `bulk` (1).
    private func scheduler() -> LaneScheduler<String> {
        LaneScheduler(weights: [8, 4, 1])
    }

    private func items(_ prefix: String, _ count: Int) -> [String] {
        (0..<count).map { "\(prefix)\($0)" }
    }

    private func tally(_ taken: [String], _ prefix: String) -> Int {
        taken.reduce(0) { $0 + ($1.hasPrefix(prefix) ? 1 : 0) }
    }

    @Test("one lane is first in first out, in batches of the limit")
    func oneLaneIsFIFO() {
        var lanes = LaneScheduler<String>(weights: [1])
        lanes.enqueue(items("b", 5), lane: 0)
        #expect(lanes.take(3) == ["b0", "b1", "b2"])
        lanes.enqueue(["b5"], lane: 0)
        #expect(lanes.take(10) == ["b3", "b4", "b5"])
        #expect(lanes.isEmpty)
    }

    @Test("a transactional delivery queued behind a bulk backlog is in the next batch")
    func transactionalOvertakesBulkBacklog() {
        var lanes = scheduler()
        lanes.enqueue(items("bulk", 5_000), lane: 2)
        #expect(lanes.take(500) == items("bulk", 500), "bulk alone takes the whole batch")
        lanes.enqueue(["tx0"], lane: 1)
        let next = lanes.take(500)
        #expect(next.contains("tx0"))
        #expect(tally(next, "tx") == 1)
        #expect(tally(next, "bulk") == 499)
        #expect(lanes.count == 4_001)
    }

    @Test("under load each lane gets its weight's share, and the lowest is not starved")
    func sharesFollowWeights() {
        var lanes = scheduler()
        lanes.enqueue(items("crit", 10_000), lane: 0)
        lanes.enqueue(items("tx", 10_000), lane: 1)
        lanes.enqueue(items("bulk", 10_000), lane: 2)
        var taken: [String] = []
        for _ in 0..<10 { taken += lanes.take(130) }
        #expect(tally(taken, "crit") == 800)
        #expect(tally(taken, "tx") == 400)
        #expect(tally(taken, "bulk") == 100)
    }

    @Test("each lane keeps its own order")
    func orderWithinLane() {
        var lanes = scheduler()
        lanes.enqueue(items("tx", 30), lane: 1)
        lanes.enqueue(items("bulk", 30), lane: 2)
        let taken = lanes.takeAll()
        #expect(taken.filter { $0.hasPrefix("tx") } == items("tx", 30))
        #expect(taken.filter { $0.hasPrefix("bulk") } == items("bulk", 30))
        #expect(taken.count == 60)
    }

    @Test("the round carries over between takes: a turn cut by the limit goes on in the next take")
    func roundCarriesOver() {
        var lanes = scheduler()
        lanes.enqueue(items("crit", 20), lane: 0)
        lanes.enqueue(items("bulk", 20), lane: 2)
        #expect(lanes.take(5) == items("crit", 5))
        #expect(lanes.take(4) == ["crit5", "crit6", "crit7", "bulk0"], "critical's turn of 8 finishes, then bulk's 1")
        #expect(lanes.take(1) == ["crit8"])
    }

    @Test("a lane without work keeps no credit for later")
    func idleLaneKeepsNoCredit() {
        var lanes = scheduler()
        lanes.enqueue(items("tx", 1), lane: 1)
        lanes.enqueue(items("bulk", 100), lane: 2)
        _ = lanes.take(50)
        lanes.enqueue(items("crit", 100), lane: 0)
        lanes.enqueue(items("tx", 100).map { "late-" + $0 }, lane: 1)
        let taken = lanes.take(13)
        #expect(tally(taken, "crit") == 8)
        #expect(tally(taken, "late-tx") == 4)
        #expect(tally(taken, "bulk") == 1)
    }

    @Test("removing the deliveries of handed-back messages keeps the rest in order and the count right")
    func removeAllKeepsCount() {
        var lanes = scheduler()
        lanes.enqueue(items("tx", 10), lane: 1)
        lanes.enqueue(items("bulk", 10), lane: 2)
        lanes.removeAll { $0.hasSuffix("3") || $0.hasSuffix("4") }
        #expect(lanes.count == 16)
        #expect(lanes.count(inLane: 1) == 8)
        #expect(lanes.takeAll().filter { $0.hasPrefix("bulk") } == ["bulk0", "bulk1", "bulk2", "bulk5", "bulk6", "bulk7", "bulk8", "bulk9"])
    }

    @Test("a batch of the lanes above the lightest takes from them only, heaviest first, each in order, and leaves the round as it was")
    func takePriorityLeavesTheLightestLane() {
        var lanes = scheduler()
        lanes.enqueue(items("bulk", 100), lane: 2)
        lanes.enqueue(items("tx", 3), lane: 1)
        lanes.enqueue(items("crit", 2), lane: 0)
        #expect(lanes.priorityCount == 5)
        #expect(lanes.takePriority(4) == ["crit0", "crit1", "tx0", "tx1"])
        #expect(lanes.priorityCount == 1)
        #expect(lanes.scheduled == [2, 2, 0])
        #expect(lanes.takePriority(10) == ["tx2"])
        #expect(lanes.takePriority(10) == [], "never the lightest lane")
        #expect(lanes.count(inLane: 2) == 100)
        lanes.enqueue(items("crit", 20).map { "late-" + $0 }, lane: 0)
        let taken = lanes.take(9)
        #expect(tally(taken, "late-crit") == 8, "critical's turn of 8, as if nothing had been taken outside the round")
        #expect(tally(taken, "bulk") == 1)
    }

    @Test("a batch of the lightest lanes takes from them only, in their round robin, and leaves the lanes above")
    func takeLightestLeavesTheLanesAbove() {
        var lanes = LaneScheduler<String>(weights: [4, 1, 1])
        lanes.enqueue(items("tx", 3), lane: 0)
        lanes.enqueue(items("a", 3), lane: 1)
        lanes.enqueue(items("b", 3), lane: 2)
        #expect(lanes.takeLightest(4) == ["a0", "b0", "a1", "b1"])
        #expect(lanes.priorityCount == 3, "never a lane above the lightest")
        #expect(lanes.takeLightest(10) == ["a2", "b2"])
        #expect(lanes.takeLightest(10) == [])
        #expect(lanes.count == 3)
    }

    @Test("lanes of one weight have no slot of their own")
    func equalWeightsHaveNoPriorityLanes() {
        var lanes = LaneScheduler<String>(weights: [2, 2])
        lanes.enqueue(items("a", 3), lane: 0)
        #expect(lanes.priorityLanes.isEmpty)
        #expect(lanes.priorityCount == 0)
        #expect(lanes.takePriority(10) == [])
    }
}
