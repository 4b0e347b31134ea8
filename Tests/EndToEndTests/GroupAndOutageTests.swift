import Foundation
import PushlineTestKit
import Testing

/// Two `pushline run` members of one group, and a Redis outage under load, against real
/// components: the work is split, nothing is lost, nothing is sent twice.
@Suite("pushline run: two members, Redis outage", .serialized, .timeLimit(.minutes(3)))
struct GroupAndOutageTests {
    @Test("two workers in one consumer group split the partitions and together deliver everything once")
    func twoWorkersSplitTheWork() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack(partitions: 4)
            defer { stack.stop() }
            let first = try stack.startReadyWorker()
            defer { first.process.stop() }
            let second = try stack.startReadyWorker()
            defer { second.process.stop() }
            let endpoints = [first.endpoints, second.endpoints]
            let total = 2000
            let log = try OutcomeLog(stack)
            try stack.publishSteadily(0..<total, perSecond: 500).wait()
            let outcomes = try log.readAll(0..<total, timeout: .seconds(90))

            expectOneOutcomePerDelivery(outcomes, total: total)
            expectInboxOnce(stack, total: total)
            let accepted = try endpoints.map { try $0.sum(of: "pushline_deliveries_total", labelled: #"status="accepted""#) }
            #expect(accepted.allSatisfy { $0 > 0 }, "each worker sent some: \(accepted)")
            #expect(accepted.reduce(0, +) == Double(total), "\(accepted)")
            // SIGTERM to one member while the other stays: its final commit may meet a group that
            // has moved on (another generation); that loses nothing and is not a failure.
            #expect(first.process.stop(graceMilliseconds: 40_000) == 0, "\(first.process.log.suffix(2000))")
            #expect(second.process.stop(graceMilliseconds: 40_000) == 0, "\(second.process.log.suffix(2000))")
        }
    }

    @Test("Redis stopped and restarted under load: /readyz 503 and nothing sent meanwhile; nothing lost, nothing sent twice")
    func redisOutage() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack()
            defer { stack.stop() }
            let total = 3000
            let (worker, endpoint, log, publisher) = try stack.readyWorkerUnderLoad(total: total, perSecond: 500, before: 500)
            defer { worker.stop() }

            // SHUTDOWN SAVE writes the claims to disk, so the restarted server has them, as a Redis
            // with persistence would.
            try stack.redisCommand("SHUTDOWN", "SAVE")
            try endpoint.wait(for: "/readyz", status: 503)
            #expect(try endpoint.sum(of: "pushline_redis_available") == 0)
            Thread.sleep(forTimeInterval: 0.5)
            let sentBefore = stack.harness.simulator.inbox().count
            Thread.sleep(forTimeInterval: 2)
            #expect(stack.harness.simulator.inbox().count == sentBefore, "notifications were sent while Redis was down")

            try stack.redis.restart()
            try endpoint.wait(for: "/readyz", status: 200)
            try publisher.wait()
            let outcomes = try log.readAll(0..<total, timeout: .seconds(90))
            expectOneOutcomePerDelivery(outcomes, total: total)
            expectInboxOnce(stack, total: total)
            #expect(worker.stop() == 0, "\(worker.log.suffix(2000))")
        }
    }
}
