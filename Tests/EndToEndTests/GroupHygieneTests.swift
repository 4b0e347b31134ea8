import Foundation
import PushlineTestKit
import Testing

/// `pushline run` killed and restarted more than once under load, against real components: the
/// restarted worker takes the partitions back and every intent gets its outcome within a bound —
/// no partition is left behind, no message waits forever.
@Suite("pushline run: repeated SIGKILL and restart", .serialized, .timeLimit(.minutes(5)))
struct GroupHygieneTests {
    @Test("two SIGKILLs under load, each followed by a restart: every intent has its outcome within a bound")
    func twoKillsAndRestarts() async throws {
        let total = 12_000
        let run = try await DedicatedThread.run(timeout: .seconds(280)) { () throws -> KilledTwice in
            let stack = try EndToEndStack(partitions: 8)
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.pendingTTL = "10s"
            try stack.publish(0..<total)
            let log = try OutcomeLog(stack)
            var pendingAtKills: [String: Int] = [:]
            var worker = try stack.startWorker(configuration)
            for kill in 1...2 {
                let before = log.outcomes.count
                try log.read(timeout: .seconds(120), waitingFor: "outcomes before kill \(kill)") { $0.count >= before + 1500 }
                worker.send(signal: SIGKILL)
                _ = worker.waitForExit()
                for claim in try stack.pendingClaims() { pendingAtKills[claim, default: 0] += 1 }
                worker = try stack.startWorker(configuration)
            }
            let restartedAt = MonotonicClock.now
            // The bound: the group hands the dead member's partitions on after the session timeout
            // (6 s), the dead worker's claims expire after pending_ttl (10 s); what is left then
            // flows at thousands per second.
            try log.readAll(0..<total, timeout: .seconds(90))
            let drained = MonotonicClock.now - restartedAt
            let status = worker.stop(graceMilliseconds: 40_000)
            let outcomes = try log.readUntilQuiet()
            return KilledTwice(outcomes: outcomes, pendingAtKills: pendingAtKills,
                               inbox: stack.inboxCounts(), drained: drained, lastStatus: status, lastLog: String(worker.log.suffix(2000)))
        }
        print("two kills: every outcome \(run.drained) after the last restart")
        // Byte-for-byte copies of an outcome are tolerated wherever they stand (at most one per
        // delivery and kill), not only above the recorded watermarks read at the kills: clean-clone
        // runs saw a chunk of copies below them twice, once a chunk emitted three times
        // (docs/worker.md, "Not yet"); analysts drop exact copies.
        expectOneOutcomePerDelivery(run.outcomes, total: total, toleratingCopiesAbove: [:], crashes: 2)
        // A delivery in flight at APNs when a worker died may be sent once more per kill that found
        // its claim pending (docs/worker.md: the window of a crash).
        let wrong = (0..<total).filter { index in
            !(1...(1 + run.pendingAtKills[claimKey(index), default: 0])).contains(run.inbox[EndToEndStack.token(index)] ?? 0)
        }
        #expect(wrong.isEmpty, "\(wrong.count) tokens received their notification more often than the kills allow, e.g. \(wrong.prefix(5))")
        #expect(run.inbox.count == total, "the inbox holds notifications for \(run.inbox.count) tokens")
        #expect(run.lastStatus == 0, "\(run.lastLog)")
    }

    /// How long the restarted worker took to deliver again, and with which membership.
    struct Resumption: Sendable {
        let waited: Duration
        let outcomes: [OutcomeLog.Outcome]
        let inbox: [String: Int]
        let pendingAtKill: Set<String>
        let recordedAtKill: [Int32: Int64]
    }

    /// librdkafka 2.0.2's mock cluster does not implement KIP-345's replacement of a static member
    /// (a join with a known `group.instance.id` is treated as a new member, and the group waits for
    /// the old one's session to expire, then longer): the "resume at once" of a real broker cannot
    /// be shown here. What is checked is that a restarted worker with or without an instance id gets
    /// its partitions back and delivers everything once; the time it waited is printed.
    @Test("a worker killed and restarted with or without static membership gets its partitions back and delivers everything once",
          arguments: [nil, "e2e-worker-0"])
    func restartedMemberResumes(groupInstanceID: String?) async throws {
        let total = 3000
        let session = Duration.seconds(20)
        let run = try await DedicatedThread.run(timeout: .seconds(170)) { () throws -> Resumption in
            let stack = try EndToEndStack(partitions: 4)
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.groupInstanceID = groupInstanceID
            configuration.kafkaProperties["session.timeout.ms"] = String(session.wholeMilliseconds)
            try stack.publish(0..<total)
            let log = try OutcomeLog(stack)
            let first = try stack.startWorker(configuration)
            try log.read(waitingFor: "the first worker's first outcomes") { $0.count >= 300 }
            first.send(signal: SIGKILL)
            _ = first.waitForExit()
            let pendingAtKill = try stack.pendingClaims()
            let recordedAtKill = try stack.recordedWatermarks()
            let restartedAt = MonotonicClock.now
            let second = try stack.startWorker(configuration)
            defer { second.stop() }
            // Partitions back: the restarted worker logs a non-empty assignment.
            try Deadline.wait(.seconds(100), for: "the restarted worker to get partitions") {
                second.log.split(separator: "\n").contains { $0.contains("partitions assigned") && $0.contains("\(EndToEndStack.intentsTopic)[") }
            }
            let waited = MonotonicClock.now - restartedAt
            try log.readAll(0..<total, timeout: .seconds(60))
            #expect(second.stop(graceMilliseconds: 40_000) == 0, "\(second.log.suffix(2000))")
            return Resumption(waited: waited, outcomes: try log.readUntilQuiet(), inbox: stack.inboxCounts(),
                              pendingAtKill: pendingAtKill, recordedAtKill: recordedAtKill)
        }
        print("group.instance.id \(groupInstanceID ?? "none"): the restarted worker had its partitions \(run.waited) after its start "
              + "(session timeout \(session))")
        expectOneOutcomePerDelivery(run.outcomes, total: total, toleratingCopiesAbove: run.recordedAtKill)
        expectInboxOnce(run.inbox, total: total, toleratingTwiceFor: run.pendingAtKill)
    }

    @Test("a second worker joins mid-stream: the first hands over partitions and every delivery has one outcome, sent once",
          arguments: ["cooperative-sticky", "range"])
    func secondWorkerJoinsMidStream(assignor: String) async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack(partitions: 4)
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.assignor = assignor
            let total = 8000
            let log = try OutcomeLog(stack)
            let first = try stack.startWorker(configuration)
            defer { first.stop() }
            let publisher = stack.publishSteadily(0..<total, perSecond: 800)
            try log.read(waitingFor: "outcomes before the second worker joins") { $0.count >= 1600 }
            configuration.metricsPort = try FreePort.next()
            let second = try stack.startWorker(configuration)
            defer { second.stop() }
            try Deadline.wait(.seconds(60), for: "the second worker to get partitions while intents flow") {
                second.log.split(separator: "\n").contains { $0.contains("partitions assigned") && $0.contains("\(EndToEndStack.intentsTopic)[") }
            }
            #expect(log.outcomes.count < total, "the second worker joined after the stream had ended")
            try publisher.wait()
            try log.readAll(0..<total, timeout: .seconds(120))
            // Counted while both still run: a member that stops may have its last commit refused by a
            // group that moves on (docs/kafka.md), and the other then emits again what it had not covered.
            expectOneOutcomePerDelivery(try log.readUntilQuiet(), total: total)
            expectInboxOnce(stack, total: total)
            #expect(first.log.contains("partitions revoked"), "the first worker gave nothing up")
            #expect(first.stop(graceMilliseconds: 40_000) == 0, "\(first.log.suffix(2000))")
            #expect(second.stop(graceMilliseconds: 40_000) == 0, "\(second.log.suffix(2000))")
        }
    }

    struct KilledTwice: Sendable {
        let outcomes: [OutcomeLog.Outcome]
        /// How many kills found each claim `pending`.
        let pendingAtKills: [String: Int]
        let inbox: [String: Int]
        let drained: Duration
        let lastStatus: Int32
        let lastLog: String
    }
}
