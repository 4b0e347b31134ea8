import Foundation
import PushlineTestKit
import Testing

/// `pushline run` while the Kafka cluster (librdkafka's mock, one broker) goes down under load:
/// the worker says so (`/readyz`, `pushline_kafka_brokers_up`), resumes when the broker is back, and
/// a SIGTERM while it is down still ends the process within `shutdown.deadline` and a grace period.
@Suite("pushline run: Kafka brokers down", .serialized, .timeLimit(.minutes(3)))
struct KafkaOutageTests {
    @Test("brokers down under load: /readyz 503 and pushline_kafka_brokers_up 0; back up: ready again, everything delivered once")
    func brokersDownAndUp() async throws {
        try await DedicatedThread.run(timeout: .seconds(170)) {
            let stack = try EndToEndStack()
            defer { stack.stop() }
            let total = 3000
            let (worker, endpoint, log, publisher) = try stack.readyWorkerUnderLoad(total: total, perSecond: 500, before: 500)
            defer { worker.stop() }
            // Messages at or above these may have their decided outcome emitted again, byte for byte,
            // if the outage costs the worker its partitions (lost: session expired) and it reads them again.
            let recordedAtOutage = try stack.recordedWatermarks()
            try stack.cluster.setBrokerDown(1)
            try endpoint.wait(for: "/readyz", status: 503)
            #expect(try endpoint.sum(of: "pushline_kafka_brokers_up") == 0)
            Thread.sleep(forTimeInterval: 3)
            try stack.cluster.setBrokerUp(1)
            let upAt = MonotonicClock.now
            try endpoint.wait(for: "/readyz", status: 200)
            let ready = MonotonicClock.now - upAt
            let before = log.outcomes.count
            try log.read(waitingFor: "a new outcome after the broker came back") { $0.count > before }
            let flowing = MonotonicClock.now - upAt
            print("broker up: /readyz 200 after \(ready), outcomes flowing after \(flowing)")
            #expect(try endpoint.sum(of: "pushline_kafka_brokers_up") >= 1)
            try publisher.wait()
            try log.readAll(0..<total, timeout: .seconds(90))
            expectOneOutcomePerDelivery(try log.readUntilQuiet(), total: total, toleratingCopiesAbove: recordedAtOutage)
            expectInboxOnce(stack, total: total)
            let lost = worker.log.contains("partitions lost")
            print("brokers down: the worker \(lost ? "lost" : "kept") its partitions")
            #expect(worker.stop(graceMilliseconds: 40_000) == 0, "\(worker.log.suffix(2000))")
        }
    }

    @Test("SIGTERM while the brokers are down: the process ends within shutdown.deadline and the grace; a restart delivers the rest once")
    func sigtermWhileBrokersDown() async throws {
        let deadline = Duration.seconds(5)
        let grace = Duration.seconds(10)
        let run = try await DedicatedThread.run(timeout: .seconds(170)) { () throws -> StoppedDuringOutage in
            let stack = try EndToEndStack()
            defer { stack.stop() }
            var configuration = try stack.configuration()
            configuration.shutdownDeadline = "\(deadline.wholeMilliseconds / 1000)s"
            configuration.pendingTTL = "5s"
            let total = 3000
            let log = try OutcomeLog(stack)
            try stack.publish(0..<total)
            let worker = try stack.startWorker(configuration)
            try log.read(waitingFor: "outcomes before the outage") { $0.count >= 500 }
            try stack.cluster.setBrokerDown(1)
            Thread.sleep(forTimeInterval: 1)
            let stoppedAt = MonotonicClock.now
            worker.send(signal: SIGTERM)
            let status = worker.waitForExit(graceMilliseconds: 60_000)
            let took = MonotonicClock.now - stoppedAt
            let recordedAtStop = try stack.recordedWatermarks()
            try stack.cluster.setBrokerUp(1)
            let second = try stack.startWorker(configuration)
            defer { second.stop() }
            try log.readAll(0..<total, timeout: .seconds(90))
            #expect(second.stop(graceMilliseconds: 40_000) == 0, "\(second.log.suffix(2000))")
            return StoppedDuringOutage(status: status, took: took, log: String(worker.log.suffix(2000)), recordedAtStop: recordedAtStop,
                                       outcomes: try log.readUntilQuiet(), inbox: stack.inboxCounts())
        }
        print("SIGTERM with the broker down: exit \(run.status) after \(run.took) (deadline \(deadline))")
        // Exit 1: the flush or the commit could not finish while Kafka was out (pushline run's help).
        #expect([0, 1].contains(run.status), "\(run.log)")
        #expect(run.took < deadline + grace, "\(run.log)")
        expectOneOutcomePerDelivery(run.outcomes, total: 3000, toleratingCopiesAbove: run.recordedAtStop)
        expectInboxOnce(run.inbox, total: 3000)
    }

    struct StoppedDuringOutage: Sendable {
        let status: Int32
        let took: Duration
        let log: String
        let recordedAtStop: [Int32: Int64]
        let outcomes: [OutcomeLog.Outcome]
        let inbox: [String: Int]
    }
}
