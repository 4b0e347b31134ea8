import Kafka
import Pipeline
import PushlineConfiguration
@testable import Redis
import Testing
@testable import Worker

/// Priority lanes and throttles in the worker's state machine, event by event (docs/policies.md):
/// the lanes read ahead of a busy sender and a higher lane's delivery overtakes a bulk backlog;
/// throttled deliveries wait for their bucket's tokens, pause the partitions when a batch's worth
/// waits, and none is dropped or failed.
@Suite("Worker: lanes and throttles")
struct LanesAndThrottlesStateMachineTests {
    typealias Fixture = StateMachineFixture

    private static func lanes(readAhead: Int) -> LanesConfiguration {
        var lanes = LanesConfiguration()
        lanes.lanes = [.init(name: "transactional", weight: 4), .init(name: "bulk", weight: 1)]
        lanes.defaultLane = "bulk"
        lanes.readAhead = readAhead
        return lanes
    }

    /// One batch out of 10 (concurrency 1), read_ahead 100, and 30 bulk deliveries of partition 0
    /// planned and ticked: the one batch slot holds bulk, 20 wait in the bulk lane.
    private static func busySender() throws -> Fixture {
        try Self.oneSlotOfTen(readAhead: 100, bulk: 30, expecting: ["scheduled [0, 10]", "claim 10"])
    }

    /// Batches of 10, transactional and bulk lanes.
    private static func batchesOfTen(concurrency: Int, readAhead: Int) throws -> Fixture {
        try Fixture {
            $0.concurrency = concurrency
            $0.batchSize = 10
            $0.policies.lanes = Self.lanes(readAhead: readAhead)
        }
    }

    /// Concurrency 1, batches of 10, and `bulk` deliveries of one intent on partition 0 planned and
    /// ticked (what that tick does is `expecting`).
    private static func oneSlotOfTen(readAhead: Int, bulk: Int, expecting: [String]) throws -> Fixture {
        var f = try Self.batchesOfTen(concurrency: 1, readAhead: readAhead)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "bulk", tokens: Array(0..<bulk), extra: #""lane":"bulk","#), offset: 0)])
        #expect(f.tick(0) == expecting)
        return f
    }

    @Test("with lanes the worker reads ahead while the sender is busy, and a transactional delivery goes in the next batch, one of its own, before the bulk backlog")
    func transactionalOvertakesBacklog() throws {
        var f = try Self.busySender()
        #expect(f.machine.mayPoll, "reading ahead: 20 wait, read_ahead is 100")
        #expect(f.machine.queuedByLane == [0, 20])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100, 101], extra: #""lane":"transactional","#), offset: 1)])
        #expect(f.machine.queuedByLane == [2, 20])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx2", tokens: [102], extra: #""lane":"transactional","#), offset: 2)])
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(2) == ["scheduled [3, 0]", "claim 3", "scheduled [0, 10]", "claim 10"],
                "a free slot: the transactional deliveries close a batch of their own, bulk's follows in the kept slot's place")
        #expect(f.claimJobs.first?.map(\.intentID) == ["tx", "tx", "tx2"])
    }

    @Test("the lightest lane's batch goes to the sender as bulk, a batch of the lanes above not")
    func bulkIsSentAsBulk() throws {
        var f = try Self.busySender()
        #expect(try f.answerClaim() == ["batch of 10", "send #0 10 to sandbox as bulk"])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100, 101, 102], extra: #""lane":"transactional","#), offset: 1)])
        _ = try f.answerSend()
        #expect(f.tick(2) == ["scheduled [3, 0]", "claim 3", "scheduled [0, 10]", "claim 10"])
        #expect(try f.answerClaim() == ["batch of 3", "send #1 3 to sandbox"])
        #expect(try f.answerClaim() == ["batch of 10", "send #2 10 to sandbox as bulk"])
    }

    @Test("a partition whose latest delivery went to a lane above the lightest is planned ahead of the others; one whose latest went to the lightest lane no more")
    func lanesAbovePlannedAhead() throws {
        var f = try Self.busySender()
        let partition = { KafkaTopicPartition(topic: Fixture.topic, partition: $0) }
        #expect(f.machine.partitionsAboveLightest.isEmpty, "partition 0 fed only bulk")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#),
                                           partition: 3, offset: 1)])
        #expect(f.machine.partitionsAboveLightest == [partition(3)])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx0", tokens: [101], extra: #""lane":"transactional","#),
                                           offset: 2)])
        #expect(f.machine.partitionsAboveLightest == [partition(0), partition(3)])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "bulk3", tokens: [102], extra: #""lane":"bulk","#),
                                           partition: 3, offset: 3)])
        #expect(f.machine.partitionsAboveLightest == [partition(0)])
    }

    @Test("while two polls' worth is being planned the loop may not poll, but may take up to a batch more from the partitions feeding the lanes above; none while draining")
    func lanesAboveTakenWhilePollingWaits() throws {
        var f = try Self.batchesOfTen(concurrency: 1, readAhead: 100)
        let bulk = { (offset: Int64, count: Int) in
            try (0..<count).map { index in
                let offset = offset + Int64(index)
                return Fixture.message(try Fixture.intent(id: "bulk\(offset)", tokens: [Int(offset)], extra: #""lane":"bulk","#), offset: offset)
            }
        }
        _ = f.pollAndPlan(try bulk(0, 1))
        #expect(f.machine.aheadLimit == 0, "no partition feeds the lanes above")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [1000], extra: #""lane":"transactional","#),
                                           partition: 3, offset: 0)])
        #expect(f.machine.aheadLimit == 10)
        _ = f.perform(f.machine.polled(try bulk(1, 20)))
        #expect(!f.machine.mayPoll, "two polls' worth (20) being planned")
        #expect(f.machine.aheadLimit == 10, "one batch more, from partition 3 only")
        _ = f.perform(f.machine.polled(try bulk(21, 6)))
        #expect(f.machine.aheadLimit == 4, "26 being planned: up to 30")
        _ = f.perform(f.machine.polled(try bulk(27, 4)))
        #expect(f.machine.aheadLimit == 0, "30 being planned")
        _ = f.pollAndPlan([])
        #expect(f.machine.mayPoll && f.machine.aheadLimit == 10, "planned: partition 3's latest delivery is still transactional")
        f.machine.drainRequested()
        #expect(f.machine.aheadLimit == 0, "draining takes nothing more")
    }

    @Test("lanes of one weight: nothing is bulk at the sender")
    func equalLanesAreNotBulk() throws {
        var f = try Fixture {
            $0.concurrency = 1
            $0.batchSize = 10
            $0.policies.lanes.lanes = [.init(name: "a", weight: 1), .init(name: "b", weight: 1)]
        }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "b", tokens: [0, 1], extra: #""lane":"b","#), offset: 0)])
        _ = f.tick(1)
        #expect(try f.answerClaim() == ["batch of 2", "send #0 2 to sandbox"])
    }

    @Test("every batch slot of bulk's taken: a transactional delivery does not wait for one, it goes at once in a batch of its own in a slot of the lanes above (with concurrency 1, one such batch at a time)")
    func transactionalHasASlotOfItsOwn() throws {
        var f = try Self.busySender()
        #expect(f.tick(1) == [], "the bulk lane does not get the lanes above's slot")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#), offset: 1)])
        #expect(f.tick(2) == ["scheduled [1, 0]", "claim 1"])
        #expect(f.claimJobs.last?.map(\.intentID) == ["tx"], "the transactional delivery alone")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx2", tokens: [101], extra: #""lane":"transactional","#), offset: 2)])
        #expect(f.tick(3) == [], "the lanes above's one slot (concurrency 1) is taken: the next transactional delivery waits for it")
        _ = try f.answerClaim()
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(4) == ["scheduled [0, 10]", "claim 10"],
                "the bulk batch answered, the transactional one still at the sender: bulk's slot is bulk's; tx2 does not join it")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx3", tokens: [102], extra: #""lane":"transactional","#), offset: 3)])
        #expect(f.tick(5) == [], "the lanes above's slot is still taken")
        _ = try f.answerSend()
        #expect(f.tick(6) == ["scheduled [2, 0]", "claim 2"], "the lanes above's slot is free again")
        #expect(f.claimJobs.last?.map(\.intentID) == ["tx2", "tx3"])
        #expect(f.machine.queuedByLane == [0, 10])
    }

    @Test("a claim of the lanes above goes to the Redis stage ahead; answered before the bulk claim submitted earlier, its batch still holds a slot of the lanes above, and the bulk batch is still bulk's")
    func claimAheadAnsweredOutOfOrder() throws {
        var f = try Self.busySender()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#), offset: 1)])
        #expect(f.tick(1) == ["scheduled [1, 0]", "claim 1"])
        #expect(f.claimsAhead == [false, true], "only the transactional batch's claim is ahead")
        #expect(try f.answerClaim(at: 1) == ["batch of 1", "send #0 1 to sandbox"])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx2", tokens: [101], extra: #""lane":"transactional","#), offset: 2)])
        #expect(f.tick(2) == [], "the transactional batch at the sender holds the lanes above's one slot (concurrency 1)")
        #expect(try f.answerClaim() == ["batch of 10", "send #1 10 to sandbox as bulk"])
        _ = try f.answerSend()
        #expect(f.tick(3) == ["scheduled [1, 0]", "claim 1"], "the transactional send answered frees the lanes above's slot")
        #expect(f.claimJobs.last?.map(\.intentID) == ["tx2"])
    }

    @Test("a claim of the lanes above that meets a Redis outage goes to the Redis stage ahead again once Redis answers, and its batch holds a slot of the lanes above")
    func claimAheadKeptThroughOutage() throws {
        var f = try Self.busySender()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#), offset: 1)])
        #expect(f.tick(1) == ["scheduled [1, 0]", "claim 1"])
        #expect(try f.answerClaim() == ["batch of 10", "send #0 10 to sandbox as bulk"])
        #expect(try f.failClaim(RedisError(.connectionRefused, "refused"), now: 2) == ["redis lost, waiting"])
        #expect(f.claimsAhead.isEmpty)
        #expect(f.perform(f.machine.redisReached(now: f.at(200))) == ["redis recovered", "claim 1"])
        #expect(f.claimsAhead == [true], "claimed again, still ahead of the bulk claims")
        #expect(f.claimJobs.last?.map(\.intentID) == ["tx"])
        #expect(try f.answerClaim(now: 201) == ["batch of 1", "send #1 1 to sandbox"])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx2", tokens: [101], extra: #""lane":"transactional","#), offset: 2)], now: 202)
        #expect(f.tick(202) == [], "its batch at the sender holds the lanes above's one slot (concurrency 1): tx2 waits")
    }

    @Test("every bulk slot taken, the lanes above close batches of their own in slots of their own, the next without waiting for the previous one's answer, up to concurrency of them; never one with bulk, never in a slot bulk freed")
    func lanesAboveHaveSlotsOfTheirOwn() throws {
        var f = try Self.batchesOfTen(concurrency: 2, readAhead: 100)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "bulk", tokens: Array(0..<30), extra: #""lane":"bulk","#), offset: 0)])
        #expect(f.tick(0) == ["scheduled [0, 10]", "claim 10"])
        #expect(f.tick(1) == ["scheduled [0, 10]", "claim 10"], "bulk holds both its slots")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#), offset: 1)])
        #expect(f.tick(2) == ["scheduled [1, 0]", "claim 1"], "a slot of the lanes above")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx2", tokens: [101], extra: #""lane":"transactional","#), offset: 2)])
        #expect(f.tick(3) == ["scheduled [1, 0]", "claim 1"], "the second slot of the lanes above: tx2 does not wait for tx's batch")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx3", tokens: [102], extra: #""lane":"transactional","#), offset: 3)])
        #expect(f.tick(4) == [], "the lanes above hold concurrency (2) batches, bulk its 2")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(5) == ["scheduled [0, 10]", "claim 10"], "a bulk batch answered: its slot is bulk's, tx3 neither takes it nor joins the bulk batch")
        #expect(f.machine.queuedByLane == [1, 0])
        #expect(f.claimJobs.map { Set($0.map(\.intentID)) } == [["bulk"], ["tx"], ["tx2"], ["bulk"]], "no batch mixes bulk and transactional")
        _ = try f.answerClaim(at: 1)
        _ = try f.answerSend()
        #expect(f.tick(6) == ["scheduled [1, 0]", "claim 1"], "tx's batch answered frees a slot of the lanes above: tx3 goes")
        #expect(f.claimJobs.last?.map(\.intentID) == ["tx3"])
        #expect(f.machine.queuedByLane == [0, 0])
    }

    @Test("with lightest_batches 1, bulk keeps one batch out while a transactional delivery came within lightest_quiet, and concurrency of them once it has been quiet that long")
    func bulkLeavesRoomWhileLanesAboveAreActive() throws {
        var f = try Fixture {
            $0.concurrency = 3
            $0.batchSize = 10
            $0.policies.lanes = Self.lanes(readAhead: 100)
            $0.policies.lanes.lightestBatches = 1
            $0.policies.lanes.lightestQuiet = .milliseconds(1_000)
        }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "bulk", tokens: Array(0..<60), extra: #""lane":"bulk","#), offset: 0)])
        #expect(f.tick(0) == ["scheduled [0, 10]", "claim 10"])
        #expect(f.tick(1) == ["scheduled [0, 10]", "claim 10"], "no lane above seen yet: bulk may take up to concurrency (3) slots")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#), offset: 1)], now: 2)
        #expect(f.tick(2) == ["scheduled [1, 0]", "claim 1"], "the transactional batch goes; bulk, with 2 out, closes none")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(3) == [], "one bulk batch still out: the bound (1) while transactional was seen within the quiet period")
        #expect(f.machine.waitsForSlot)
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(4) == ["scheduled [0, 10]", "claim 10"], "no bulk batch out: one may go")
        #expect(f.tick(5) == [])
        #expect(f.tick(1_001) == [], "999 ms after the transactional delivery: still bounded")
        #expect(f.tick(1_002) == ["scheduled [0, 10]", "claim 10"], "quiet for lightest_quiet: bulk has its concurrency slots again")
        #expect(f.tick(1_003) == ["scheduled [0, 10]", "claim 10"])
        #expect(f.tick(1_004) == [], "3 bulk batches out")
    }

    @Test("a batch of the lanes above out does not stop the polling while a bulk slot is free (read_ahead 0): the bulk's batches stop it, up to concurrency of them")
    func lanesAboveBatchLeavesBulkPolling() throws {
        var f = try Self.batchesOfTen(concurrency: 1, readAhead: 0)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#), offset: 0)])
        #expect(f.tick(1) == ["scheduled [1, 0]", "claim 1"])
        #expect(f.machine.mayPoll, "the lanes above's one slot (concurrency 1) is taken, bulk's is free")
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "bulk", tokens: [0, 1, 2], extra: #""lane":"bulk","#), offset: 1)], now: 1)
        #expect(f.tick(2) == ["scheduled [0, 3]", "claim 3"], "the bulk batch goes in its own slot beside the transactional one")
        #expect(!f.machine.mayPoll, "bulk's one slot taken, nothing read ahead")
        #expect(try f.answerClaim() == ["batch of 1", "send #0 1 to sandbox"])
        _ = try f.answerSend()
        #expect(!f.machine.mayPoll, "the lanes above's slot free again, bulk's still taken")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.machine.mayPoll, "bulk's batch answered")
    }

    @Test("reading ahead with every batch slot taken, the open batch waits for a slot: the loop polls without waiting for Kafka; a delivery for a free slot of the lanes above, or a slot answered, ends the wait")
    func openBatchWaitsForSlot() throws {
        var f = try Self.busySender()
        #expect(f.machine.waitsForSlot, "the one slot holds bulk, 20 bulk deliveries wait, no lane above has work")
        #expect(f.machine.pollTimeout(now: f.at(1)) == .zero)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#), offset: 1)])
        #expect(!f.machine.waitsForSlot, "the transactional delivery can take the lanes above's free slot")
        #expect(f.tick(1) == ["scheduled [1, 0]", "claim 1"])
        #expect(f.machine.waitsForSlot, "both slots taken")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(!f.machine.waitsForSlot, "the bulk batch answered: its slot is free")
    }

    /// One batch out of 10 (concurrency 1), read_ahead 20, and 30 bulk deliveries of partition 0
    /// planned and ticked: 20 wait in the bulk lane, which is full, so partition 0 is held.
    private static func fullBulkLane() throws -> Fixture {
        try Self.oneSlotOfTen(readAhead: 20, bulk: 30, expecting: ["scheduled [0, 10]", "claim 10", "hold lane bulk: 0"])
    }

    @Test("a lane holding read_ahead deliveries holds the partitions that fed it (their messages are not taken), the worker keeps polling the others, and the lane releases them below half")
    func fullLaneHoldsItsPartitions() throws {
        var f = try Self.fullBulkLane()
        #expect(f.machine.mayPoll, "the bulk partition is held: what a poll brings is for the other lanes")
        #expect(f.machine.pollLimit == 10)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "tx", tokens: [100], extra: #""lane":"transactional","#),
                                           partition: 1, offset: 0)])
        #expect(f.machine.queuedByLane == [1, 20])
        #expect(f.tick(1) == ["scheduled [1, 0]", "claim 1"], "held once; the transactional delivery takes a slot of the lanes above")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(2) == ["scheduled [0, 10]", "claim 10"], "10 bulk deliveries left: not below the low-water mark (10)")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(3) == ["scheduled [0, 10]", "claim 10", "release lane bulk: 0"])
        #expect(f.tick(4) == [], "released once")
    }

    @Test("a partition a full lane holds stays held when the worker resumes after a Redis outage, and is released when the lane drains")
    func laneHoldOutlastsWholePause() throws {
        var f = try Self.fullBulkLane()
        #expect(f.perform(f.machine.redisFailed(RedisError(.connectionRefused, "refused"), now: f.at(1))) == ["redis lost, waiting"])
        #expect(f.tick(1).contains("pause redis"))
        #expect(f.perform(f.machine.redisReached(now: f.at(200))) == ["redis recovered"])
        #expect(f.tick(201) == ["resume but 0"], "the bulk lane still holds 20")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(!f.tick(202).contains("release lane bulk: 0"), "10 still queued: not below half")
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(f.tick(203).contains("release lane bulk: 0"))
    }

    @Test("a lane that fills while every partition is paused keeps the partitions that fed it held when the others resume")
    func laneFillingWhilePausedHolds() throws {
        var f = try Self.oneSlotOfTen(readAhead: 20, bulk: 10, expecting: ["scheduled [0, 10]", "claim 10"])
        #expect(f.perform(f.machine.redisFailed(RedisError(.connectionRefused, "refused"), now: f.at(1))) == ["redis lost, waiting"])
        #expect(f.tick(1).contains("pause redis"))
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "more", tokens: Array(10..<40), extra: #""lane":"bulk","#),
                                           partition: 2, offset: 0)])
        #expect(!f.tick(2).contains("hold lane bulk: 2"), "every partition is held already")
        #expect(f.perform(f.machine.redisReached(now: f.at(200))) == ["redis recovered"])
        #expect(f.tick(201).contains("resume but 2"), "the bulk lane holds 30: partition 2 stays held")
    }

    @Test("a partition assigned anew is not held for a lane")
    func assignedPartitionIsNotLaneHeld() throws {
        var f = try Self.fullBulkLane()
        #expect(f.perform(f.machine.assigned([KafkaTopicPartition(topic: Fixture.topic, partition: 0)])) == [])
        #expect(!f.machine.mayPoll, "nothing is held for a lane any more")
    }

    @Test("an intent that names no lane (or one the pipeline lacks) is in the default lane")
    func defaultLane() throws {
        var f = try Fixture { $0.policies.lanes = Self.lanes(readAhead: 100) }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "a", tokens: [0]), offset: 0),
                           Fixture.message(try Fixture.intent(id: "b", tokens: [1], extra: #""lane":"nope","#), offset: 1)])
        #expect(f.machine.queuedByLane == [0, 2])
    }

    @Test("without lanes nothing is read ahead: at concurrency the worker does not poll")
    func noReadAheadWithoutLanes() throws {
        var f = try Fixture {
            $0.concurrency = 1
            $0.batchSize = 2
        }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0, 1, 2]), offset: 0)])
        #expect(f.tick(0) == ["claim 2"])
        #expect(!f.machine.mayPoll)
    }

    @Test("a throttled delivery waits for its bucket's tokens; a batch's worth waiting pauses the partitions; the grant goes on, the rest asks again later")
    func throttleHoldsAndReleases() throws {
        var f = try Fixture {
            $0.batchSize = 2
            $0.policies.throttles = [ThrottleConfiguration(scope: .campaign, value: "spring", rate: 10, burst: 2)]
        }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "c", tokens: [0, 1, 2], extra: #""campaign":"spring","#), offset: 0),
                           Fixture.message(try Fixture.intent(id: "free", tokens: [3]), offset: 1)])
        #expect(f.tick(1) == ["take tokens campaign:spring×3", "claim 1", "pause throttle"])
        #expect(f.machine.heldByThrottle == [3])
        #expect(f.grantTokens([2], retryAfter: 100, now: 1) == [])
        #expect(f.tick(2) == ["claim 2", "resume"])
        #expect(f.tick(50) == [], "the bucket said 100 ms")
        #expect(f.tick(101) == ["take tokens campaign:spring×1"])
        #expect(f.grantTokens([1], now: 101) == [])
        #expect(f.tick(102) == ["claim 1"])
        #expect(f.machine.heldByThrottle == [0])
        #expect(f.claimJobs.flatMap { $0 }.filter { $0.intentID == "c" }.count == 3, "every throttled delivery claimed once")
    }

    @Test("throttled deliveries wait through a Redis outage and are asked for again once Redis answers")
    func throttleWaitsForRedis() throws {
        var f = try Fixture {
            $0.policies.throttles = [ThrottleConfiguration(scope: .app, value: Fixture.app, rate: 10)]
        }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "c", tokens: [0]), offset: 0)])
        #expect(f.tick(0) == ["take tokens app:\(Fixture.app)×1"])
        #expect(f.perform(f.machine.tokensFailed(RedisError(.connectionRefused, "refused"), now: f.at(0))) == ["redis lost, waiting"])
        #expect(f.tick(1).contains("pause redis"))
        #expect(f.perform(f.machine.redisReached(now: f.at(200))) == ["redis recovered"])
        #expect(f.tick(201) == ["take tokens app:\(Fixture.app)×1", "resume"])
    }
}
