import Foundation
import Kafka
import PushlineTestKit
import Redis
import Runtime
import Testing
import Worker

/// A worker that ends on an error it cannot handle leaves nothing of its own running.
@Suite("Worker: ending on an error", .serialized)
struct WorkerFailureTests {
    @Test("a worker refused by Redis for good (a wrong password) fails, and once stop() has thrown, its Redis stage's and registry lookups' threads have ended")
    func failedWorkerLeavesNoThreads() async throws {
        let redis = try await RedisServer.start(password: "the-right-one")
        defer { redis.stop() }
        let threads = try await DedicatedThread.run(timeout: .seconds(60)) { () throws -> (left: [String], failed: Bool) in
            let cluster = try KafkaMockCluster(brokers: 1)
            try cluster.createTopic(LocalPipeline.intentsTopic, partitions: 1)
            for topic in LocalPipeline.outputTopics { try cluster.createTopic(topic, partitions: 1) }
            let harness = try SimulatorHarness()
            let sender = try LocalPipeline.sender(port: harness.devicePort, caFile: harness.certificateFile)
            defer {
                sender.shutdown()
                harness.stop()
            }
            let configuration = LocalPipeline.workerConfiguration(
                kafka: cluster.bootstrapServers,
                stores: .redis(RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redis.port), password: "a-wrong-one")))
            let before = Self.stageThreads()
            let worker = try Worker(configuration: configuration, catalog: LocalPipeline.catalogStore(), sender: sender)
            let failed = Runtime.Semaphore()
            worker.start { _ in failed.signal() }
            let hasFailed = failed.wait(milliseconds: 30_000)
            // It ended on its error: stop() returns at once, throwing it.
            let stopped = Result { try worker.stop() }
            if case .success = stopped { throw TestKitError("stop() did not throw the worker's error") }
            // Threads of that kind that began since: this worker's (no other worker starts meanwhile
            // when the tests run one at a time, as `make test` runs them).
            let left = Self.stageThreads().filter { before[$0.key] == nil }
            return (left.values.sorted(), hasFailed)
        }
        #expect(threads.failed, "the worker did not fail within 30 s")
        #expect(threads.left.isEmpty, "threads of the worker's Redis stage or registry lookups still running after stop()")
    }

    /// This process's threads that are a worker's Redis stage or registry lookups, by thread id: their
    /// names (`pushline-redis-<pipeline>`, `pushline-registry-<pipeline>`, cut to the system's 15 bytes).
    private static func stageThreads() -> [String: String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var threads: [String: String] = [:]
        for task in tasks {
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .newlines),
                name.hasPrefix("pushline-redis-") || name.hasPrefix("pushline-regist") else { continue }
            threads[task] = name
        }
        return threads
    }
}
