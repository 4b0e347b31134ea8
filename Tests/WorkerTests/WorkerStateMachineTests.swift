import Kafka
@testable import Redis
import Testing
@testable import Worker

/// The worker's state machine driven event by event, with no Kafka, Redis or sender: each test
/// feeds events and asserts the actions the machine returns, through the paths of docs/worker.md.
@Suite("Worker: state machine")
struct WorkerStateMachineTests {
    typealias Fixture = StateMachineFixture

    private static let refusedRedis = RedisError(.connectionRefused, "connection refused")

    @Test("a token-addressed intent: planned, batched at linger, claimed, sent, recorded, completed once Kafka has every outcome")
    func deliveryPath() throws {
        var f = try Fixture()
        #expect(f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0, 1]), offset: 0)]) == ["plan 1"])
        #expect(f.tick(0) == [])  // the batch lingers 1 ms
        #expect(f.tick(1) == ["claim 2"])
        #expect(try f.answerClaim() == ["batch of 2", "send #0 2 to sandbox"])
        #expect(try f.answerSend() == ["record 2"])
        #expect(try f.answerRecord() == ["produce outcome accepted, outcome accepted"])
        #expect(f.acknowledge([0]) == ["decided 1"])
        #expect(!f.machine.isIdle)
        #expect(f.acknowledge([1]) == ["decided 1", "complete 0:0"])
        #expect(f.machine.isIdle)
        #expect(f.machine.deliveriesInFlight == 0)
    }

    @Test("each message completes when its own outcomes are acknowledged, whatever the order; the consumer's watermark orders the commits")
    func completionOrder() throws {
        var f = try Fixture()
        #expect(try f.deliverToRecords([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), offset: 0),
                                        Fixture.message(try Fixture.intent(id: "i2", tokens: [1]), offset: 1)])
            == ["produce outcome accepted, outcome accepted"])
        #expect(f.acknowledge([1]) == ["decided 1", "complete 0:1"])
        #expect(f.acknowledge([0]) == ["decided 1", "complete 0:0"])
    }

    @Test("bytes that are no intent: a dead letter and an invalid outcome, the message completes once both are acknowledged")
    func undecodable() throws {
        var f = try Fixture()
        let actions = f.pollAndPlan([Fixture.message(Array("not an intent".utf8), offset: 0)])
        #expect(actions.count == 2)
        #expect(actions.first == "plan 1")
        #expect(actions.last?.hasPrefix("produce dead letter ") == true)
        #expect(actions.last?.contains(", outcome invalid ") == true)
        #expect(f.tick(1) == [])
        #expect(f.acknowledge([0]) == [])
        #expect(f.acknowledge([1]) == ["complete 0:0"])
    }

    @Test("duplicates and collapse ids: suppressed outcomes produced at once, only the admitted delivery sent")
    func suppressed() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0, 1, 2]), offset: 0)])
        #expect(f.tick(1) == ["claim 3"])
        let duplicate = try Fixture.token(1), collapsed = try Fixture.token(2)
        #expect(try f.answerClaim { delivery in
            delivery.delivery.token == duplicate ? .suppressed("DuplicateIntent")
                : delivery.delivery.token == collapsed ? .suppressed("DuplicateCollapse") : .admitted
        } == ["produce outcome suppressed DuplicateIntent, outcome suppressed DuplicateCollapse", "batch of 1", "send #0 1 to sandbox"])
        #expect(f.acknowledge([0, 1]) == ["decided 2"])
        _ = try f.answerSend()
        #expect(try f.answerRecord() == ["produce outcome accepted"])
        #expect(f.acknowledge([2]) == ["decided 1", "complete 0:0"])
    }

    @Test("a redelivered message whose outcome Kafka has: completed with nothing produced or sent")
    func redeliveredBelowWatermark() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), offset: 7)])
        #expect(f.tick(1) == ["claim 1"])
        #expect(try f.answerClaim { _ in .recorded } == ["complete 0:7"])
        #expect(f.machine.isIdle)
    }

    @Test("410 Unregistered: the rejected outcome and a token event, the message completes with both")
    func rejected() throws {
        var f = try Fixture()
        try f.deliverToRecords(tokens: [0], .rejected)
        #expect(f.produced.map { Fixture.summary(.produce([$0.output])) }
            == ["produce outcome rejected Unregistered", "produce token event unregistered"])
        #expect(f.acknowledge([1]) == [])
        #expect(f.acknowledge([0]) == ["decided 1", "complete 0:0"])
    }

    @Test("a claim another attempt holds: deferred, claimed again at the recheck interval, the message held meanwhile")
    func deferred() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), offset: 0)])
        #expect(f.tick(1) == ["claim 1"])
        #expect(try f.answerClaim(now: 1) { _ in .deferred } == [])
        #expect(f.tick(1000) == [])
        #expect(!f.machine.isIdle)
        #expect(f.tick(1001) == ["claim 1"])
        #expect(try f.answerClaim(now: 1001) == ["batch of 1", "send #0 1 to sandbox"])
    }

    @Test("a copy deferred behind this worker's own claim is claimed again as soon as that delivery is recorded, not at the recheck")
    func copyWokenByItsOriginalsRecord() throws {
        var f = try Fixture()
        let intent = try Fixture.intent(id: "i1", tokens: [0])
        _ = f.pollAndPlan([Fixture.message(intent, offset: 0), Fixture.message(intent, offset: 1)])
        #expect(f.tick(1) == ["claim 2"])
        #expect(try f.answerClaim(now: 1) { $0.source.offset == 1 ? .deferred : .admitted } == ["batch of 1", "send #0 1 to sandbox"])
        #expect(try f.answerSend(now: 2) == ["record 1"])
        #expect(f.tick(3) == [], "the copy waits while its original's claim is held")
        #expect(try f.answerRecord(now: 4) == ["produce outcome accepted"])
        #expect(f.tick(4) == ["claim 1"])
        #expect(try f.answerClaim(now: 5) { _ in .suppressed("DuplicateIntent") } == ["produce outcome suppressed DuplicateIntent"])
        #expect(f.tick(1001) == [], "nothing is left to recheck")
        #expect(f.acknowledge() == ["decided 2", "complete 0:0,0:1"])
        #expect(f.machine.isIdle)
    }

    @Test("Redis out under pause: the step waits, partitions pause, a PING at the back-off, then the step runs and partitions resume")
    func redisOutagePause() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), offset: 0)])
        #expect(f.tick(1) == ["claim 1"])
        #expect(try f.failClaim(Self.refusedRedis, now: 1) == ["redis lost, waiting"])
        #expect(f.tick(1) == ["pause redis"])
        // A user-addressed intent taken meanwhile waits for the registry too.
        #expect(f.pollAndPlan([Fixture.message(Fixture.intent(id: "i2", user: "u"), offset: 1)], now: 2) == ["plan 1"])
        #expect(f.tick(2) == [])
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisFailed(Self.refusedRedis, now: f.at(10_000))) == [])
        #expect(f.tick(10_001) == [])
        #expect(f.tick(30_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(30_000))) == ["redis recovered", "claim 1", "planWithRegistry 1"])
        #expect(f.tick(30_001) == ["resume"])
        #expect(try f.answerClaim() == ["batch of 1", "send #0 1 to sandbox"])
    }

    @Test("Redis out under fail_open: sent without claims, recorded without Redis; a claim taken before the outage settles once Redis is back")
    func redisOutageFailOpen() throws {
        var f = try Fixture { $0.redisUnreachable = .failOpen }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), offset: 0)])
        #expect(f.tick(1) == ["claim 1"])
        #expect(try f.answerClaim() == ["batch of 1", "send #0 1 to sandbox"])
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i2", tokens: [1]), offset: 1)], now: 2)
        #expect(f.tick(3) == ["claim 1"])
        #expect(try f.failClaim(Self.refusedRedis, now: 3) == ["redis lost", "sendWithoutClaims 1"])
        #expect(f.sealWithoutKeys() == ["batch of 1", "send #1 1 to sandbox without claims"])
        #expect(f.tick(4) == [])  // fail_open does not pause
        // The delivery claimed before the outage: its outcome at once, its claim settled later.
        #expect(try f.answerSend(now: 5) == ["recorded before claims 1", "recordWithoutRedis 1"])
        #expect(f.recordWithoutRedis() == ["produce outcome accepted"])
        #expect(try f.answerSend(now: 6) == ["recordWithoutRedis 1"])
        #expect(f.recordWithoutRedis() == ["produce outcome accepted"])
        #expect(f.acknowledge() == ["decided 2", "complete 0:0,0:1"])
        // A user-addressed intent still waits for the registry.
        #expect(f.pollAndPlan([Fixture.message(Fixture.intent(id: "i3", user: "u"), offset: 2)], now: 7) == ["plan 1"])
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(10_000))) == ["redis recovered", "record 1", "planWithRegistry 1"])
        #expect(try f.answerRecord() == [])
    }

    @Test("partitions handed back: deliveries not yet claimed are dropped, claimed ones are sent and settled but nothing is produced for them")
    func handBack() throws {
        var f = try Fixture()
        let p0 = KafkaTopicPartition(topic: Fixture.topic, partition: 0)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), partition: 0, offset: 0),
                           Fixture.message(try Fixture.intent(id: "i2", tokens: [1]), partition: 1, offset: 0)])
        #expect(f.tick(1) == ["claim 2"])
        #expect(try f.answerClaim() == ["batch of 2", "send #0 2 to sandbox"])
        // Taken after the claim: still in the open batch when its partition goes.
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i3", tokens: [2]), partition: 0, offset: 1),
                           Fixture.message(try Fixture.intent(id: "i4", tokens: [3]), partition: 1, offset: 1)], now: 2)
        #expect(f.machine.tracks(any: [p0]))
        #expect(f.perform(f.machine.handBack([p0])) == ["handed back 2"])
        #expect(!f.machine.tracks(any: [p0]))
        #expect(f.tick(3) == ["claim 1"])
        #expect(try f.answerSend() == ["record 2"])
        #expect(try f.answerRecord() == ["produce outcome accepted"])
        #expect(f.acknowledge() == ["decided 1", "complete 1:0"])
        #expect(f.perform(f.machine.handBack([p0])) == [])
    }

    @Test("a record refused because the producer's queue is full: partitions paused, produced again after the back-off, then resumed")
    func producerQueueFull() throws {
        var f = try Fixture()
        try f.deliverToRecords(tokens: [0])
        let queueFull = KafkaError.Code.queueFull.name
        #expect(f.refuse(0, .queueFull, now: 10) == ["refused \(queueFull) from 0:0: retrying(firstOfRound: true)"])
        #expect(f.tick(10) == ["pause kafka_producer"])
        #expect(f.tick(109) == [])
        #expect(f.tick(110) == ["produce again outcome accepted", "resume"])
        #expect(f.acknowledge([1]) == ["decided 1", "complete 0:0"])
    }

    @Test("a record refused for good is replaced by its stand-in; a stand-in refused too is given up and its message completes")
    func refusedForGood() throws {
        var f = try Fixture()
        try f.deliverToRecords(tokens: [0])
        let tooLarge = KafkaError.Code.messageSizeTooLarge.name
        #expect(f.refuse(0, .messageSizeTooLarge) == ["refused \(tooLarge) from 0:0: replaced", "produce again stand-in of outcome accepted"])
        #expect(f.refuse(1, .messageSizeTooLarge) == ["refused \(tooLarge) from 0:0: dropped", "complete 0:0"])
        #expect(f.machine.isIdle)
    }

    @Test("max_in_flight: paused at the limit (partitions assigned meanwhile paused too), resumed below it")
    func maximumInFlight() throws {
        var f = try Fixture { $0.maximumInFlight = 2 }
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0, 1]), offset: 0)])
        #expect(f.tick(0) == ["pause max_in_flight"])
        #expect(f.perform(f.machine.assigned([KafkaTopicPartition(topic: Fixture.topic, partition: 3)])) == ["pause 1 partitions"])
        _ = f.tick(1)
        _ = try f.answerClaim()
        _ = try f.answerSend()
        _ = try f.answerRecord()
        #expect(f.acknowledge([0]) == ["decided 1"])
        #expect(f.tick(2) == ["resume"])
        #expect(f.perform(f.machine.assigned([KafkaTopicPartition(topic: Fixture.topic, partition: 3)])) == [])
    }

    @Test("an APNs pool's circuit open pauses the partitions until it closes")
    func apnsCircuit() throws {
        var f = try Fixture()
        #expect(f.tick(0, apnsCircuitOpen: true) == ["pause apns_circuit"])
        #expect(f.tick(1, apnsCircuitOpen: true) == [])
        #expect(f.tick(2) == ["resume"])
    }

    @Test("concurrency and batch size: a batch closes at batch.size or linger only while fewer than concurrency batches are out")
    func concurrency() throws {
        var f = try Fixture {
            $0.concurrency = 1
            $0.batchSize = 2
        }
        #expect(f.machine.pollLimit == 2)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0, 1]), offset: 0)])
        #expect(f.machine.pollLimit == 1)
        #expect(f.tick(0) == ["claim 2"])  // full: no linger
        #expect(!f.machine.mayPoll)
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i2", tokens: [2]), offset: 1)], now: 1)
        #expect(f.tick(5) == [])
        _ = try f.answerClaim()
        #expect(f.tick(6) == [])
        _ = try f.answerSend()
        #expect(f.machine.mayPoll)
        #expect(f.tick(7) == ["claim 1"])
    }

    @Test("a drain (SIGTERM) closes the open batch at once and polls no more; the machine is idle once everything is acknowledged")
    func drain() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), offset: 0)])
        #expect(f.machine.mayPoll)
        f.machine.drainRequested()
        #expect(!f.machine.mayPoll)
        #expect(f.tick(0) == ["claim 1"])
        _ = try f.answerClaim()
        #expect(f.machine.workIsMoving)
        _ = try f.answerSend()
        _ = try f.answerRecord()
        #expect(f.acknowledge() == ["decided 1", "complete 0:0"])
        #expect(!f.machine.workIsMoving)
        #expect(f.machine.isIdle)
    }

    @Test("user recipients are planned together with one registry round trip; an outage there keeps them waiting")
    func userRecipients() throws {
        var f = try Fixture { $0.maximumInFlight = 2 }
        #expect(f.pollAndPlan([Fixture.message(Fixture.intent(id: "i1", user: "u1"), offset: 0),
                               Fixture.message(Fixture.intent(id: "i2", user: "u2"), offset: 1)]) == ["plan 2", "planWithRegistry 2"])
        #expect(f.failRegistry(Self.refusedRedis) == ["redis lost, waiting"])
        #expect(f.tick(0) == ["pause redis"])
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(10_000))) == ["redis recovered", "planWithRegistry 2"])
        #expect(f.tick(10_000) == ["resume"])
        #expect(try f.answerRegistry(devices: [0, 1], now: 10_000) == [])
        #expect(f.tick(10_001) == ["claim 4", "pause max_in_flight"])
    }

    @Test("user-addressed messages count as being planned from the registry round trip until their plans come back from the planning tasks")
    func registryPlanningCounted() throws {
        var f = try Fixture { $0.batchSize = 1 }
        #expect(f.pollAndPlan([Fixture.message(Fixture.intent(id: "i1", user: "u1"), offset: 0),
                               Fixture.message(Fixture.intent(id: "i2", user: "u2"), offset: 1)]) == ["plan 2", "planWithRegistry 2"])
        // Two polls' worth (2 × batch.size) still being planned: no poll, and a drain would wait for them.
        #expect(f.machine.workIsMoving)
        #expect(!f.machine.mayPoll)
        // The round trip failed: back to waiting for Redis, no longer being planned.
        #expect(f.failRegistry(Self.refusedRedis) == ["redis lost, waiting"])
        #expect(!f.machine.workIsMoving)
        #expect(f.tick(0) == ["pause redis"])
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(10_000))) == ["redis recovered", "planWithRegistry 2"])
        #expect(f.machine.workIsMoving)
        // Every user without a device: one `invalid` outcome each; once Kafka has them, nothing is left.
        let answered = try f.answerRegistry(devices: [], now: 10_000)
        #expect(answered == ["produce outcome invalid NoRegisteredDevices", "produce outcome invalid NoRegisteredDevices"])
        #expect(f.acknowledge() == ["complete 0:0,0:1"])
        #expect(!f.machine.workIsMoving)
        #expect(f.machine.isIdle)
    }

    @Test("a registry round trip that fails after its partition was handed back plans only the messages still tracked when Redis is back")
    func registryFailedAfterHandBack() throws {
        var f = try Fixture()
        let p0 = KafkaTopicPartition(topic: Fixture.topic, partition: 0)
        #expect(f.pollAndPlan([Fixture.message(Fixture.intent(id: "i1", user: "u1"), partition: 0, offset: 0),
                               Fixture.message(Fixture.intent(id: "i2", user: "u2"), partition: 1, offset: 0)])
            == ["plan 2", "planWithRegistry 2"])
        // The round trip runs off the loop's thread: the partition goes while it is out.
        #expect(f.perform(f.machine.handBack([p0])) == ["handed back 1"])
        #expect(f.failRegistry(Self.refusedRedis) == ["redis lost, waiting"])
        #expect(f.tick(0) == ["pause redis"])
        #expect(f.tick(10_000) == ["ping"])
        #expect(f.perform(f.machine.redisReached(now: f.at(10_000))) == ["redis recovered", "planWithRegistry 1"])
        let answered = try f.answerRegistry(devices: [], now: 10_000)
        #expect(answered == ["produce outcome invalid NoRegisteredDevices"])
        #expect(f.acknowledge() == ["complete 1:0"])
        #expect(f.machine.isIdle)
    }

    @Test("a Redis error that is not an outage ends the worker")
    func fatalRedisError() throws {
        var f = try Fixture()
        _ = f.pollAndPlan([Fixture.message(try Fixture.intent(id: "i1", tokens: [0]), offset: 0)])
        _ = f.tick(1)
        #expect(throws: RedisError.self) { _ = try f.failClaim(RedisError(serverReply: "WRONGPASS invalid password")) }
    }
}
