import Foundation
import PushlineTestKit
import Testing

/// `pushline run` as a subprocess against real components (mock Kafka, redis-server, the simulator
/// in process), killed and stopped under load: every delivery (intent × device) ends with an
/// outcome, the simulator's inbox holds each notification once, and offsets end where work ended.
@Suite("pushline run: SIGKILL and SIGTERM under load", .serialized, .timeLimit(.minutes(3)))
struct CrashAndShutdownTests {
    /// How long the killed worker's claims stay pending, against how long the group waits before
    /// it hands the dead member's partitions to the new one.
    struct Restart: Sendable, CustomTestStringConvertible {
        let pendingTTL: String
        let sessionTimeoutMilliseconds: Int
        var onUncertain = "resend"
        /// How long the simulator holds each request, and intents published steadily at 1,000 a
        /// second rather than all at once: the kill finds deliveries at APNs.
        var apnsLatencyMilliseconds = 0

        var testDescription: String {
            "pending_ttl \(pendingTTL), session.timeout.ms \(sessionTimeoutMilliseconds), on_uncertain \(onUncertain), "
                + "APNs latency \(apnsLatencyMilliseconds) ms"
        }
    }

    @Test("a worker killed with SIGKILL mid-stream and restarted loses nothing and sends nothing twice", arguments: [
        // The killed worker's claims have expired by the time the new member gets the partitions.
        Restart(pendingTTL: "2s", sessionTimeoutMilliseconds: 6000),
        // The new member meets them still pending, named by an owner that no longer lives: it
        // takes them over (resend) or settles them `unknown` (skip: no device notified twice).
        Restart(pendingTTL: "10s", sessionTimeoutMilliseconds: 3000, apnsLatencyMilliseconds: 200),
        Restart(pendingTTL: "60s", sessionTimeoutMilliseconds: 3000, onUncertain: "skip", apnsLatencyMilliseconds: 200),
    ])
    func killedWorkerRestarts(_ restart: Restart) async throws {
        let total = 3000
        let run = try await DedicatedThread.run(timeout: .seconds(170)) { () throws -> KilledRun in
            let stack = try EndToEndStack()
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.pendingTTL = restart.pendingTTL
            configuration.onUncertain = restart.onUncertain
            var faults = stack.harness.simulator.faults
            faults.latencyMilliseconds = restart.apnsLatencyMilliseconds
            stack.harness.simulator.setFaults(faults)
            configuration.kafkaProperties["session.timeout.ms"] = String(restart.sessionTimeoutMilliseconds)
            let publisher = restart.apnsLatencyMilliseconds > 0 ? stack.publishSteadily(0..<total, perSecond: 1000) : nil
            if publisher == nil { try stack.publish(0..<total) }
            let log = try OutcomeLog(stack)
            let first = try stack.startWorker(configuration)
            // Killed by what APNs received, not by what the outcome reader has read so far (it may
            // start late): the kill lands while the worker is mid-stream.
            try Deadline.wait(.seconds(60), for: "the first worker's first 300 notifications") {
                stack.harness.simulator.stats().requests >= 300
            }
            first.send(signal: SIGKILL)
            let killedStatus = first.waitForExit()
            // Claims still pending belong to deliveries the killed worker may have handed to APNs
            // without recording it: the one window in which a notification can go out twice.
            let pendingAtKill = try stack.pendingClaims()
            // Messages at or above these had not all their outcomes known to be in Kafka: a
            // redelivery emits their decided outcomes again, which Kafka may already hold.
            let recordedAtKill = try stack.recordedWatermarks()
            let outcomesAtKill = log.outcomes.count

            let second = try stack.startWorker(configuration)
            defer { second.stop() }
            try publisher?.wait()
            try log.readAll(0..<total, timeout: .seconds(90))
            // shutdown.deadline is 30 s by default; the grace period only keeps a hung worker from hanging the test.
            let secondStatus = second.stop(graceMilliseconds: 40_000)
            let outcomes = try log.readUntilQuiet()
            return KilledRun(killedStatus: killedStatus, outcomesAtKill: outcomesAtKill, pendingAtKill: pendingAtKill,
                             recordedAtKill: recordedAtKill, outcomes: outcomes, inbox: stack.inboxCounts(), secondStatus: secondStatus,
                             secondLog: String(second.log.suffix(2000)))
        }
        #expect(run.killedStatus == 128 + SIGKILL)
        #expect(run.outcomesAtKill < total, "the worker was killed after it had finished")
        if restart.onUncertain == "skip" {
            expectOneOutcomePerDelivery(run.outcomes, total: total, toleratingCopiesAbove: run.recordedAtKill, statuses: ["accepted", "unknown"])
            expectInboxAtMostOnce(run.inbox, outcomes: run.outcomes, total: total, uncertainWithin: run.pendingAtKill)
            #expect(!run.pendingAtKill.isEmpty, "premise: the kill found deliveries at APNs")
            // Every claim the killed worker left pending is uncertain, and only those.
            let unknown = run.outcomes.filter { $0.status == "unknown" }.compactMap { Int($0.intentID.dropFirst("e2e-".count)) }
            #expect(unknown.map(claimKey).sorted() == run.pendingAtKill.sorted(),
                    "\(unknown.count) unknown outcomes for \(run.pendingAtKill.count) claims pending at the kill")
        } else {
            expectOneOutcomePerDelivery(run.outcomes, total: total, toleratingCopiesAbove: run.recordedAtKill)
            expectInboxOnce(run.inbox, total: total, toleratingTwiceFor: run.pendingAtKill)
        }
        #expect(run.secondStatus == 0, "\(run.secondLog)")
    }

    /// What a SIGKILL-and-restart run left, for the checks.
    struct KilledRun: Sendable {
        let killedStatus: Int32
        let outcomesAtKill: Int
        let pendingAtKill: Set<String>
        let recordedAtKill: [Int32: Int64]
        let outcomes: [OutcomeLog.Outcome]
        let inbox: [String: Int]
        let secondStatus: Int32
        let secondLog: String
    }

    @Test("SIGTERM under load drains: exit 0 within the deadline, outcomes flushed, offsets committed and recorded in Redis at the last completed message")
    func sigtermDrains() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack(partitions: 2)
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.shutdownDeadline = "10s"
            let worker = try stack.startWorker(configuration)
            defer { worker.stop() }
            let total = 3000
            let log = try OutcomeLog(stack)
            let publisher = stack.publishSteadily(0..<total, perSecond: 600)
            try log.read(waitingFor: "outcomes before SIGTERM") { $0.count >= 600 }
            worker.send(signal: SIGTERM)
            // The deadline is 10 s; the grace period only keeps a hung worker from hanging the test.
            #expect(worker.waitForExit(graceMilliseconds: 30_000) == 0, "\(worker.log.suffix(2000))")
            try publisher.wait()

            let committed = try stack.committedOffsets(group: configuration.group)
            #expect(committed.values.reduce(0, +) > 0, "nothing was committed: \(committed)")
            let outcomes = try log.read(waitingFor: "the outcomes of every committed message") { outcomes in
                let recorded = Set(outcomes.map { "\($0.partition):\($0.offset)" })
                return committed.allSatisfy { partition, offset in (0..<offset).allSatisfy { recorded.contains("\(partition):\($0)") } }
            }
            #expect(outcomes.allSatisfy { $0.status == "accepted" })
            // Recorded in Redis as far as committed: were the commit refused (the group moved on), a
            // redelivery of those messages would emit nothing again (docs/worker.md, "Redeliveries").
            let recorded = try stack.recordedWatermarks()
            for (partition, offset) in committed {
                #expect(recorded[partition] == offset, "partition \(partition): committed \(offset), recorded \(String(describing: recorded[partition]))")
            }
            // A new member of the group starts exactly where the drained worker left off.
            for (partition, offset) in try stack.firstOffsets(group: configuration.group, partitions: Set(committed.keys)) {
                #expect(offset == committed[partition], "partition \(partition) restarts at \(offset), committed \(String(describing: committed[partition]))")
            }
        }
    }
}
