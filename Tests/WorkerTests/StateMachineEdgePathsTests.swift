import Kafka
@testable import Redis
import Testing
@testable import Worker

/// Paths of the worker's state machine that docs/worker.md documents and the other state-machine
/// suites do not drive: a revocation (the open batch closed at once, then what is left handed
/// back), refusals after the producer closed or without their record, a record job that meets a
/// Redis outage, and what is left unsent at a stop.
@Suite("Worker: state machine edge paths")
struct StateMachineEdgePathsTests {
    typealias Fixture = StateMachineFixture

    private static let refusedRedis = RedisError(.connectionRefused, "connection refused")
    private static let p0 = KafkaTopicPartition(topic: Fixture.topic, partition: 0)

    // MARK: Revocation

    @Test("while a revocation is finished the open batch closes at once (before its linger, with no batch slot free); after it, the batch waits for a slot again")
    func revocationClosesOpenBatchAtOnce() throws {
        var f = try Fixture { $0.concurrency = 1 }
        _ = f.pollAndPlan([try Fixture.message(number: 1)])
        #expect(f.tick(0) == [], "the batch lingers 1 ms")
        f.machine.revocationStarted()
        #expect(f.tick(0) == ["claim 1"], "closed at once, before the linger")
        // Concurrency 1, its one slot taken by the claim above: outside a revocation this would wait.
        _ = f.pollAndPlan([try Fixture.message(number: 2)], now: 1)
        #expect(f.tick(5) == ["claim 1"], "closed at once, though no batch slot is free")
        f.machine.revocationEnded()
        _ = f.pollAndPlan([try Fixture.message(number: 3)], now: 6)
        #expect(f.tick(10) == [], "the revocation over: the open batch waits for a free slot")
        #expect(try f.answerClaim() == ["batch of 1", "send #0 1 to sandbox"])
        #expect(try f.answerClaim() == ["batch of 1", "send #1 1 to sandbox"])
        #expect(try f.answerSend() == ["record 1"])
        #expect(f.tick(11) == [], "one batch still at the sender")
        #expect(try f.answerSend() == ["record 1"])
        #expect(f.tick(12) == ["claim 1"])
        #expect(f.claimJobs.map { $0.map(\.intentID) } == [["i3"]])
    }

    @Test("a revocation finishes what moves (the admitted delivery completes its message); a delivery deferred behind another attempt's claim does not move, is handed back and never claimed again")
    func revocationFinishesThenHandsBackDeferred() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([try Fixture.message(number: 1), try Fixture.message(number: 2)])
        f.machine.revocationStarted()
        #expect(f.tick(0) == ["claim 2"])
        #expect(try f.answerClaim { $0.intentID == "i2" ? .deferred : .admitted } == ["batch of 1", "send #0 1 to sandbox"])
        #expect(f.machine.workIsMoving)
        #expect(try f.answerSend(now: 1) == ["record 1"])
        #expect(try f.answerRecord(now: 1) == ["produce outcome accepted"])
        #expect(f.acknowledge(now: 2) == ["decided 1", "complete 0:0"])
        // Only the deferred delivery is left: the loop stops finishing and hands it back.
        #expect(f.machine.tracks(any: [Self.p0]))
        #expect(!f.machine.workIsMoving)
        #expect(f.machine.deliveriesInFlight == 1)
        #expect(f.perform(f.machine.handBack([Self.p0])) == ["handed back 1"])
        f.machine.revocationEnded()
        #expect(!f.machine.tracks(any: [Self.p0]))
        #expect(f.machine.isIdle)
        #expect(f.machine.deliveriesInFlight == 0)
        #expect(f.tick(2000) == [], "the handed-back deferred delivery is not claimed again at its recheck")
        #expect(f.claimJobs.isEmpty)
    }

    // MARK: Records Kafka refuses

    @Test("after the producer closed, a refused record (for a passing reason or for good) is handed back: not produced again nor replaced, no pause, its message left incomplete; an acknowledged one still completes its message")
    func refusedAfterProducerClosed() throws {
        var f = try Fixture()
        #expect(try f.deliverToRecords([try Fixture.message(number: 1), try Fixture.message(number: 2), try Fixture.message(number: 3)])
            == ["produce outcome accepted, outcome accepted, outcome accepted"])
        f.machine.producerHasClosed()
        #expect(f.refuse(0, .queueFull, now: 10) == ["refused \(KafkaError.Code.queueFull.name) from 0:0: handedBack"])
        #expect(f.refuse(1, .messageSizeTooLarge, now: 10) == ["refused \(KafkaError.Code.messageSizeTooLarge.name) from 0:1: handedBack"])
        #expect(f.acknowledge([2], now: 10) == ["decided 1", "complete 0:2"])
        #expect(f.tick(10) == [], "no pause for records waiting to be produced again: none waits")
        #expect(f.tick(10_000) == [], "nothing produced again")
        #expect(f.produced.count == 3)
        #expect(!f.machine.isIdle, "the two refused records' messages are left incomplete")
        #expect(f.machine.deliveriesInFlight == 2)
        #expect(!f.machine.workIsMoving)
    }

    @Test("a record refused after its message was handed back (for a passing reason or for good) is not produced again nor replaced, and pauses nothing")
    func refusedAfterHandBack() throws {
        var f = try Fixture()
        #expect(try f.deliverToRecords([try Fixture.message(number: 1), try Fixture.message(number: 2)])
            == ["produce outcome accepted, outcome accepted"])
        #expect(f.perform(f.machine.handBack([Self.p0])) == ["handed back 2"])
        #expect(f.refuse(0, .queueFull, now: 10) == ["refused \(KafkaError.Code.queueFull.name) from nothing: handedBack"])
        #expect(f.refuse(1, .messageSizeTooLarge, now: 10) == ["refused \(KafkaError.Code.messageSizeTooLarge.name) from nothing: handedBack"])
        #expect(f.tick(10) == [], "no pause for a record of a message that is not this worker's")
        #expect(f.tick(10_000) == [], "nothing produced again")
        #expect(f.produced.count == 2, "no second attempt, no stand-in")
        #expect(f.machine.isIdle)
        #expect(f.machine.deliveriesInFlight == 0)
    }

    @Test("a record waiting to be produced again counts as work that moves; when its message is handed back it is dropped from the retries, and the partitions resume")
    func retryPendingAtHandBack() throws {
        var f = try Fixture()
        try f.deliverToRecords(tokens: [0])
        let queueFull = KafkaError.Code.queueFull.name
        #expect(f.refuse(0, .queueFull, now: 10) == ["refused \(queueFull) from 0:0: retrying(firstOfRound: true)"])
        #expect(f.tick(10) == ["pause kafka_producer"])
        #expect(f.machine.workIsMoving, "a record waiting to be produced again is work that moves")
        #expect(f.perform(f.machine.handBack([Self.p0])) == ["handed back 1"])
        #expect(!f.machine.workIsMoving)
        #expect(f.tick(110) == ["resume"], "the back-off's end produces nothing again")
        #expect(f.produced.count == 1)
        #expect(f.machine.isIdle)
    }

    @Test("records of two partitions waiting to be produced again: handing back one partition drops only its record; the other's is produced again at the back-off's end, the partitions paused until then")
    func retriesOfOtherPartitionsSurviveHandBack() throws {
        var f = try Fixture()
        #expect(try f.deliverToRecords([try Fixture.message(number: 1), try Fixture.message(number: 2, partition: 1, offset: 0)])
            == ["produce outcome accepted, outcome accepted"])
        let queueFull = KafkaError.Code.queueFull.name
        #expect(f.refuse(0, .queueFull, now: 10) == ["refused \(queueFull) from 0:0: retrying(firstOfRound: true)"])
        #expect(f.refuse(1, .queueFull, now: 10) == ["refused \(queueFull) from 1:0: retrying(firstOfRound: false)"])
        #expect(f.tick(10) == ["pause kafka_producer"])
        #expect(f.perform(f.machine.handBack([Self.p0])) == ["handed back 1"])
        #expect(f.tick(50) == [], "still paused: partition 1's record waits")
        #expect(f.tick(110) == ["produce again outcome accepted", "resume"])
        #expect(f.produced.count == 3)
        #expect(f.produced[2].output.entry == f.produced[1].output.entry, "the record produced again is partition 1's")
        #expect(f.acknowledge([2]) == ["decided 1", "complete 1:0"])
        #expect(f.machine.isIdle)
    }

    @Test("a refusal whose report carries no record is given up (droppedWithoutRecord), whatever the error: not produced again nor replaced, and its message completes without it")
    func refusedWithoutRecord() throws {
        var f = try Fixture()
        try f.deliverToRecords(tokens: [0, 1])
        #expect(f.produced.count == 2)
        #expect(f.refuseWithoutRecord(0, .queueFull, now: 10) == ["refused \(KafkaError.Code.queueFull.name) from 0:0: droppedWithoutRecord"])
        #expect(f.machine.deliveriesInFlight == 1)
        #expect(f.refuseWithoutRecord(1, .messageSizeTooLarge, now: 10)
            == ["refused \(KafkaError.Code.messageSizeTooLarge.name) from 0:0: droppedWithoutRecord", "complete 0:0"])
        #expect(f.machine.isIdle)
        #expect(f.machine.deliveriesInFlight == 0)
        #expect(f.tick(10) == [], "no pause: nothing waits to be produced again")
        #expect(f.tick(10_000) == [])
        #expect(f.produced.count == 2, "no stand-in, no second attempt")
    }

    @Test("after the producer has closed, a refusal without its record is handed back too: its message stays incomplete")
    func refusedWithoutRecordAfterProducerClosed() throws {
        var f = try Fixture()
        try f.deliverToRecords(tokens: [0])
        f.machine.producerHasClosed()
        #expect(f.refuseWithoutRecord(0, .queueFull, now: 10) == ["refused \(KafkaError.Code.queueFull.name) from 0:0: handedBack"])
        #expect(f.tick(10_000) == [], "nothing produced again")
        #expect(f.produced.count == 1)
        #expect(!f.machine.isIdle, "the message is left incomplete")
        #expect(f.machine.deliveriesInFlight == 1)
    }

    // MARK: Record jobs and Redis outages

    @Test("a record job that meets a Redis outage under pause: Redis lost, partitions paused, the delivery kept in flight; recorded (not sent again) once Redis answers, then resumed")
    func recordJobMeetsOutageUnderPause() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([try Fixture.message(number: 1)])
        #expect(f.tick(1) == ["claim 1"])
        #expect(try f.answerClaim(now: 1) == ["batch of 1", "send #0 1 to sandbox"])
        #expect(try f.answerSend(now: 2) == ["record 1"])
        #expect(try f.failRecord(Self.refusedRedis, now: 2) == ["redis lost, waiting"])
        #expect(f.tick(2) == ["pause redis"])
        #expect(f.machine.deliveriesInFlight == 1)
        #expect(!f.machine.isIdle)
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(10_000))) == ["redis recovered", "record 1"])
        #expect(f.tick(10_000) == ["resume"])
        #expect(f.sends.isEmpty, "nothing sent again")
        #expect(try f.answerRecord(now: 10_000) == ["produce outcome accepted"])
        #expect(f.acknowledge() == ["decided 1", "complete 0:0"])
        #expect(f.machine.isIdle)
    }

    @Test("a delivery whose retries ran out: its dead letter (RetriesExhausted) produced before its failed outcome, after the record job and, the record job meeting an outage under fail_open, without it")
    func retriesExhaustedDeadLetterBeforeOutcome() throws {
        var f = try Fixture { $0.redisUnreachable = .failOpen }
        _ = f.pollAndPlan([try Fixture.message(number: 1)])
        #expect(f.tick(1) == ["claim 1"])
        #expect(try f.answerClaim() == ["batch of 1", "send #0 1 to sandbox"])
        #expect(try f.answerSend(.failed, now: 2) == ["record 1"])
        #expect(try f.answerRecord(now: 2) == ["produce dead letter RetriesExhausted, outcome failed"])
        _ = f.pollAndPlan([try Fixture.message(number: 2)], now: 3)
        #expect(f.tick(4) == ["claim 1"])
        #expect(try f.answerClaim(now: 4) == ["batch of 1", "send #1 1 to sandbox"])
        #expect(try f.answerSend(.failed, now: 5) == ["record 1"])
        #expect(try f.failRecord(Self.refusedRedis, now: 5) == ["redis lost", "recorded before claims 1", "recordWithoutRedis 1"])
        #expect(f.recordWithoutRedis() == ["produce dead letter RetriesExhausted, outcome failed"])
    }

    @Test("record jobs that meet a Redis outage under fail_open: an accepted delivery's outcome produced at once (its claim settled once Redis is back); a 410's records wait for Redis whole")
    func recordJobsMeetOutageUnderFailOpen() throws {
        var f = try Fixture { $0.redisUnreachable = .failOpen }
        _ = f.pollAndPlan([try Fixture.message(number: 1)])
        #expect(f.tick(1) == ["claim 1"])
        _ = f.pollAndPlan([try Fixture.message(number: 2)], now: 1)
        #expect(f.tick(2) == ["claim 1"])
        _ = try f.answerClaim(now: 2)
        _ = try f.answerClaim(now: 2)
        #expect(try f.answerSend(.accepted, now: 3) == ["record 1"])
        #expect(try f.answerSend(.rejected, now: 3) == ["record 1"])
        #expect(try f.failRecord(Self.refusedRedis, now: 4) == ["redis lost", "recorded before claims 1", "recordWithoutRedis 1"])
        #expect(try f.failRecord(Self.refusedRedis, now: 4) == [], "a 410's token event needs the registry: it waits")
        #expect(f.tick(4) == [], "fail_open does not pause")
        #expect(f.recordWithoutRedis() == ["produce outcome accepted"])
        #expect(f.acknowledge(now: 5) == ["decided 1", "complete 0:0"])
        #expect(f.machine.deliveriesInFlight == 1)
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(10_000))) == ["redis recovered", "record 1", "record 1"])
        #expect(try f.answerRecord(now: 10_000) == [], "only the claim was left to settle")
        #expect(try f.answerRecord(now: 10_000) == ["produce outcome rejected Unregistered, token event unregistered"])
        #expect(f.acknowledge(now: 10_001) == ["decided 1", "complete 0:1"])
        #expect(f.machine.isIdle)
        #expect(f.sends.isEmpty, "nothing sent again")
    }

    @Test("a record job that meets a Redis error that is not an outage (WRONGPASS) makes the machine throw it")
    func recordJobFatalRedisError() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([try Fixture.message(number: 1)])
        _ = f.tick(1)
        _ = try f.answerClaim()
        #expect(try f.answerSend() == ["record 1"])
        #expect(throws: RedisError.self) { _ = try f.failRecord(RedisError(serverReply: "WRONGPASS invalid password")) }
    }

    // MARK: Stopping

    @Test("unsentAtStop: the deliveries whose claims wait for Redis, and whether Redis is out; not claims at the Redis stage, none of handed-back partitions, none once Redis answered")
    func unsentAtStop() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([try Fixture.message(number: 1), try Fixture.message(number: 2, partition: 1, offset: 0)])
        #expect(f.tick(1) == ["claim 2"])
        let atStage = f.machine.unsentAtStop()
        #expect(atStage.deliveries.isEmpty, "a claim job at the Redis stage does not wait for Redis")
        #expect(!atStage.redisOut)
        #expect(try f.failClaim(Self.refusedRedis, now: 1) == ["redis lost, waiting"])
        f.machine.drainRequested()
        #expect(f.tick(2) == ["pause redis"])
        let waiting = f.machine.unsentAtStop()
        #expect(waiting.deliveries.map(\.intentID) == ["i1", "i2"])
        #expect(waiting.redisOut)
        #expect(f.perform(f.machine.handBack([Self.p0])) == ["handed back 1"])
        let afterHandBack = f.machine.unsentAtStop()
        #expect(afterHandBack.deliveries.map(\.intentID) == ["i2"])
        #expect(afterHandBack.redisOut)
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(10_000))) == ["redis recovered", "claim 1"])
        let answered = f.machine.unsentAtStop()
        #expect(answered.deliveries.isEmpty)
        #expect(!answered.redisOut)
    }

    @Test("unsentAtStop leaves out a record job waiting for Redis: its deliveries were sent")
    func unsentAtStopLeavesOutRecords() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([try Fixture.message(number: 1)])
        _ = f.tick(1)
        _ = try f.answerClaim()
        _ = try f.answerSend()
        #expect(try f.failRecord(Self.refusedRedis) == ["redis lost, waiting"])
        let unsent = f.machine.unsentAtStop()
        #expect(unsent.deliveries.isEmpty)
        #expect(unsent.redisOut)
    }
}

extension StateMachineFixture {
    /// Kafka refuses the record produced at `index` with `code`, its report carrying no record.
    fileprivate mutating func refuseWithoutRecord(_ index: Int, _ code: KafkaError.Code, now: Int = 0) -> [String] {
        let (id, output) = produced[index]
        let report = KafkaDeliveryReport(id: id, topicPartition: KafkaTopicPartition(topic: output.record.topic, partition: 0),
                                         result: .failure(KafkaError(code: code, reason: "refused")))
        return perform(machine.acknowledged([report], now: at(now)))
    }
}
