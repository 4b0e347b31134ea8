import APNsSimulator
import Foundation
import PushlineTestKit
import Testing

/// `pushline run` stopped with SIGTERM while Redis or APNs is gone (Kafka: `KafkaOutageTests`), and
/// Redis restarted empty under load: the process ends within `shutdown.deadline` and a grace
/// period, and nothing reaches a device twice.
@Suite("pushline run: SIGTERM under faults, Redis restarted empty", .serialized, .timeLimit(.minutes(3)))
struct ShutdownUnderFaultsTests {
    static let deadline = Duration.seconds(5)
    /// `pushline run`'s own bound after the deadline (RunCommand.shutdownGrace).
    static let grace = Duration.seconds(10)

    enum Fault: String, Sendable, CaseIterable {
        case redisStopped = "redis-server stopped"
        case apnsSilent = "the simulator never answering"
    }

    @Test("SIGTERM under load ends the process within shutdown.deadline and the grace; no notification is sent twice",
          arguments: Fault.allCases)
    func sigtermUnderFault(_ fault: Fault) async throws {
        let run = try await DedicatedThread.run(timeout: .seconds(120)) { () throws -> (status: Int32, took: Duration, log: String, inbox: [String: Int]) in
            let stack = try EndToEndStack()
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.shutdownDeadline = "\(Self.deadline.wholeMilliseconds / 1000)s"
            let log = try OutcomeLog(stack)
            let worker = try stack.startWorker(configuration)
            defer { worker.stop() }
            let publisher = stack.publishSteadily(0..<3000, perSecond: 600)
            try log.read(waitingFor: "outcomes before the fault") { $0.count >= 300 }
            switch fault {
            case .redisStopped: stack.redis.stop()
            case .apnsSilent:
                var faults = SimulatorFaults()
                faults.neverRespondRate = 1
                stack.harness.simulator.setFaults(faults)
            }
            Thread.sleep(forTimeInterval: 1)
            let stoppedAt = MonotonicClock.now
            worker.send(signal: SIGTERM)
            let status = worker.waitForExit(graceMilliseconds: 60_000)
            let took = MonotonicClock.now - stoppedAt
            try publisher.wait()
            return (status, took, String(worker.log.suffix(2000)), stack.inboxCounts())
        }
        print("SIGTERM with \(fault.rawValue): exit \(run.status) after \(run.took) (deadline \(Self.deadline))")
        #expect(run.status == 0, "\(run.log)")
        #expect(run.took < Self.deadline + Self.grace, "\(run.log)")
        let twice = run.inbox.filter { $0.value > 1 }
        #expect(twice.isEmpty, "\(twice.count) tokens received their notification more than once")
    }

    @Test("Redis restarted empty under load: /readyz 503 while it is down, 200 again after; every intent gets an outcome")
    func redisRestartedEmpty() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack()
            defer { stack.stop() }
            let total = 3000
            let (worker, endpoint, log, publisher) = try stack.readyWorkerUnderLoad(total: total, perSecond: 500, before: 500)
            defer { worker.stop() }
            let pendingAtStop = try stack.pendingClaims()
            stack.redis.stop()  // no persistence: the restarted server is empty
            try endpoint.wait(for: "/readyz", status: 503)
            try stack.redis.restart()
            let upAt = MonotonicClock.now
            try endpoint.wait(for: "/readyz", status: 200)
            let ready = MonotonicClock.now - upAt
            let sentAtRestart = stack.harness.simulator.inbox().count
            try Deadline.wait(for: "a notification after Redis came back") { stack.harness.simulator.inbox().count > sentAtRestart }
            let flowing = MonotonicClock.now - upAt
            try publisher.wait()
            try log.readAll(0..<total, timeout: .seconds(90))
            let outcomes = try log.readUntilQuiet()
            let inbox = stack.inboxCounts()
            let twice = inbox.filter { $0.value > 1 }.count
            let outcomesTwice = Dictionary(grouping: outcomes, by: \.intentID).values.filter { $0.count > 1 }.count
            print("redis restarted empty: /readyz 200 after \(ready), sending after \(flowing); "
                  + "\(pendingAtStop.count) claims pending at the stop, \(twice) tokens notified twice, \(outcomesTwice) intents with two outcomes")
            #expect(inbox.count == total, "the inbox holds notifications for \(inbox.count) tokens")
            #expect(worker.stop(graceMilliseconds: 40_000) == 0, "\(worker.log.suffix(2000))")
        }
    }
}
