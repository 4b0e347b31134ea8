import Foundation
import LocalStack
import PushlineTestKit
import Testing

/// Priority lanes and throttles through `pushline run` against the mock cluster, a real
/// redis-server and the simulator (docs/policies.md). Rates and orders are read from the
/// `completed_at` the outcomes carry, never from the test's clock.
@Suite("End to end: lanes and throttles", .serialized)
struct LanesAndThrottlesTests {
    /// An intent like ``EndToEndStack/intent(_:)`` with `fields` added (`"lane":"bulk",`).
    private static func intent(_ index: Int, _ fields: String) -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"e2e-\(index)","app":"\(LocalPipeline.app)","environment":"sandbox",\(fields)\
            "tokens":["\(EndToEndStack.token(index))"],"payload":{"aps":{"alert":"hello \(index)"}}}
            """.utf8)
    }

    private static func completedAt(_ outcome: OutcomeLog.Outcome) throws -> Int64 {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.raw.utf8)) as? [String: Any])
        return try #require((json["completed_at"] as? NSNumber)?.int64Value, "\(outcome.raw)")
    }

    /// APNs answers after 100 ms, and batches of 50 go one at a time: the backlog drains at about
    /// 500/s. Lanes `transactional` (4) and `bulk` (1, the default).
    private static func slowBacklog(_ stack: EndToEndStack, readAhead: Int) throws -> LocalRunConfiguration {
        var faults = stack.harness.simulator.faults
        faults.latencyMilliseconds = 100
        stack.harness.simulator.setFaults(faults)
        var configuration = try stack.configuration()
        configuration.batchSize = 50
        configuration.policies = ["  lanes:", "    default: bulk", "    read_ahead: \(readAhead)",
                                  "    weights:", "      transactional: 4", "      bulk: 1"]
        configuration.concurrency = 1
        return configuration
    }

    /// Bulk outcomes (intents below `bulk`) completed after the last transactional one.
    private static func bulkCompletedAfterLastTransactional(_ outcomes: [OutcomeLog.Outcome], bulk: Int) throws -> Int {
        let isTransactional = { (outcome: OutcomeLog.Outcome) in (Int(outcome.intentID.dropFirst(4)) ?? 0) >= bulk }
        let lastTransactional = try #require(try outcomes.filter(isTransactional).map(Self.completedAt).max())
        return try outcomes.filter { !isTransactional($0) }.filter { try Self.completedAt($0) > lastTransactional }.count
    }

    @Test("a throttle of 20/s (burst 5) holds the rate over every stretch of the run, and each of 100 deliveries is accepted once")
    func throttleHoldsRate() async throws {
        let (rate, burst, total) = (20.0, 5.0, 100)
        let (outcomes, inbox, log) = try await DedicatedThread.run {
            let stack = try EndToEndStack(partitions: 2)
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.policies = ["  throttles:", "    - campaign: spring", "      rate: \(Int(rate))", "      burst: \(Int(burst))"]
            let worker = try stack.startWorker(configuration)
            defer { worker.stop() }
            let outcomeLog = try OutcomeLog(stack)
            try stack.publish((0..<total).map { Self.intent($0, #""campaign":"spring","#) })
            try outcomeLog.read(timeout: .seconds(90), waitingFor: "\(total) outcomes") { $0.count >= total }
            return (try outcomeLog.readUntilQuiet(), stack.inboxCounts(), worker.log)
        }
        #expect(outcomes.count == total, "one outcome per delivery\n\(log)")
        #expect(outcomes.allSatisfy { $0.status == "accepted" }, "a throttle fails nothing: \(Set(outcomes.map(\.status)))")
        #expect(inbox.count == total && inbox.values.allSatisfy { $0 == 1 }, "each device notified once")
        let times = try outcomes.map(Self.completedAt).sorted()
        // Every stretch [times[i], times[j]] holds j - i + 1 outcomes: no more than the bucket allows
        // in it. Completions trail their grants by each send's own round trip, so one token either
        // side is allowed for that.
        var worst = 0.0
        for i in times.indices {
            for j in times.indices where j > i {
                let allowed = rate * Double(times[j] - times[i]) / 1000 + burst + 2
                worst = max(worst, Double(j - i + 1) - allowed)
            }
        }
        #expect(worst <= 0, "a stretch held \(worst) more outcomes than rate × elapsed + burst allows")
        let first = try #require(times.first), last = try #require(times.last)
        #expect(Double(last - first) / 1000 >= (Double(total) - burst - 2) / rate, "the run lasted as long as the rate makes it")
    }

    @Test("with a bulk backlog, transactional intents published after it are sent before the backlog drains")
    func transactionalBeforeBulkBacklog() async throws {
        let (bulk, transactional) = (3_000, 10)
        let (outcomes, inbox, log) = try await DedicatedThread.run {
            let stack = try EndToEndStack(partitions: 1)
            defer { stack.stop() }
            let configuration = try Self.slowBacklog(stack, readAhead: 5000)
            let worker = try stack.startWorker(configuration)
            defer { worker.stop() }
            let outcomeLog = try OutcomeLog(stack)
            try stack.publish((0..<bulk).map { Self.intent($0, #""lane":"bulk","#) })
            try outcomeLog.read(timeout: .seconds(90), waitingFor: "the first bulk outcomes") { $0.count >= 50 }
            try stack.publish((bulk..<bulk + transactional).map { Self.intent($0, #""lane":"transactional","#) })
            try outcomeLog.read(timeout: .seconds(120), waitingFor: "every outcome") { $0.count >= bulk + transactional }
            return (try outcomeLog.readUntilQuiet(), stack.inboxCounts(), worker.log)
        }
        #expect(outcomes.count == bulk + transactional, "\(log)")
        #expect(outcomes.allSatisfy { $0.status == "accepted" })
        #expect(inbox.count == bulk + transactional && inbox.values.allSatisfy { $0 == 1 })
        let bulkAfter = try Self.bulkCompletedAfterLastTransactional(outcomes, bulk: bulk)
        // In order (one queue) every bulk intent ahead of them would go first: none after.
        #expect(bulkAfter >= bulk / 2, "only \(bulkAfter) of \(bulk) bulk outcomes completed after the last transactional one")
    }

    @Test("a full bulk lane holds its partition: transactional intents of another partition, published behind the bulk backlog, go before it drains; each intent is sent once and the offsets committed end where the partitions end")
    func fullLaneHoldsItsPartition() async throws {
        let (bulk, transactional) = (3_000, 10)
        let (outcomes, inbox, committed, log) = try await DedicatedThread.run(timeout: .seconds(200)) {
            let stack = try EndToEndStack(partitions: 2)
            defer { stack.stop() }
            // The lane is full at 200: the rest of the backlog stays in librdkafka's queue of the
            // partition, which the worker does not read while the lane holds it.
            var configuration = try Self.slowBacklog(stack, readAhead: 200)
            configuration.shutdownDeadline = "10s"
            let worker = try stack.startWorker(configuration)
            defer { worker.stop() }
            let outcomeLog = try OutcomeLog(stack)
            try stack.publish((0..<bulk).map { Self.intent($0, #""lane":"bulk","#) }, partition: 0)
            try outcomeLog.read(timeout: .seconds(90), waitingFor: "the first bulk outcomes") { $0.count >= 50 }
            try stack.publish((bulk..<bulk + transactional).map { Self.intent($0, #""lane":"transactional","#) }, partition: 1)
            try outcomeLog.read(timeout: .seconds(120), waitingFor: "every outcome") { $0.count >= bulk + transactional }
            let outcomes = try outcomeLog.readUntilQuiet()
            worker.send(signal: SIGTERM)
            #expect(worker.waitForExit(graceMilliseconds: 30_000) == 0, "\(worker.log.suffix(2000))")
            return (outcomes, stack.inboxCounts(), try stack.committedOffsets(group: configuration.group), worker.log)
        }
        #expect(outcomes.count == bulk + transactional, "one outcome per intent, none lost or repeated across the holds\n\(log.suffix(2000))")
        #expect(Dictionary(grouping: outcomes, by: \.intentID).values.allSatisfy { $0.count == 1 })
        #expect(outcomes.allSatisfy { $0.status == "accepted" })
        #expect(inbox.count == bulk + transactional && inbox.values.allSatisfy { $0 == 1 }, "each device notified once")
        #expect(committed == [0: Int64(bulk), 1: Int64(transactional)], "committed where each partition ends: \(committed)")
        let bulkAfter = try Self.bulkCompletedAfterLastTransactional(outcomes, bulk: bulk)
        // Were the bulk partition not held, the worker would keep reading it round robin with the
        // transactional one and the bulk lane would hold most of the backlog ahead of them.
        #expect(bulkAfter >= bulk / 2, "only \(bulkAfter) of \(bulk) bulk outcomes completed after the last transactional one")
    }
}
