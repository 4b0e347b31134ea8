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

        var testDescription: String {
            "pending_ttl \(pendingTTL), session.timeout.ms \(sessionTimeoutMilliseconds)"
        }
    }

    @Test("a worker killed with SIGKILL mid-stream and restarted loses nothing and sends nothing twice", arguments: [
        // The killed worker's claims have expired by the time the new member gets the partitions.
        Restart(pendingTTL: "2s", sessionTimeoutMilliseconds: 6000),
        // The new member meets them still pending: it must wait for them to expire, then send.
        Restart(pendingTTL: "10s", sessionTimeoutMilliseconds: 3000),
    ])
    func killedWorkerRestarts(_ restart: Restart) async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack()
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.pendingTTL = restart.pendingTTL
            configuration.kafkaProperties["session.timeout.ms"] = String(restart.sessionTimeoutMilliseconds)
            let total = 3000
            try stack.publish(0..<total)
            let log = try OutcomeLog(stack)
            let first = try stack.startWorker(configuration)
            try log.read(waitingFor: "the first worker's first outcomes") { $0.count >= 300 }
            first.send(signal: SIGKILL)
            #expect(first.waitForExit() == 128 + SIGKILL)
            // Claims still pending belong to deliveries the killed worker may have handed to APNs
            // without recording it: the one window in which a notification can go out twice.
            let pendingAtKill = try stack.pendingClaims()
            #expect(log.outcomes.count < total, "the worker was killed after it had finished")

            let second = try stack.startWorker(configuration)
            defer { second.stop() }
            let outcomes = try log.readAll(0..<total, timeout: .seconds(90))
            expectOneAcceptedPerDelivery(outcomes, total: total, toleratingTwiceFor: pendingAtKill)
            expectInboxOnce(stack, total: total, toleratingTwiceFor: pendingAtKill)
            // shutdown.deadline is 30 s by default; the grace period only keeps a hung worker from hanging the test.
            #expect(second.stop(graceMilliseconds: 40_000) == 0, "\(second.log.suffix(2000))")
        }
    }

    @Test("SIGTERM under load drains: exit 0 within the deadline, outcomes flushed, offsets committed at the last completed message")
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
            // A new member of the group starts exactly where the drained worker left off.
            for (partition, offset) in try stack.firstOffsets(group: configuration.group, partitions: Set(committed.keys)) {
                #expect(offset == committed[partition], "partition \(partition) restarts at \(offset), committed \(String(describing: committed[partition]))")
            }
        }
    }
}
