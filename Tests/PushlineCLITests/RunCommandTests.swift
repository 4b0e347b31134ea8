import APNsSimulator
import Foundation
import Kafka
import PushlineTestKit
import Runtime
import Testing

/// `pushline run` as a subprocess against a mock Kafka cluster, a real redis-server and the
/// in-process simulator, all configured through a YAML file as a user would.
@Suite("pushline run", .timeLimit(.minutes(2)))
struct RunCommandTests {
    @Test("runs the pipeline of a configuration: an intent becomes an accepted outcome and a notification, with metrics, readiness and JSON logs; SIGTERM exits 0")
    func runsPipeline() async throws {
        let (cluster, redis, harness, metricsPort, configuration) = try await configuredStack()
        defer {
            harness.stop()
            redis.stop()
        }
        let token = String(repeating: "5a", count: 32)
        let intent = #"{"schema_version":1,"id":"run-1","app":"com.example.pushline","environment":"sandbox","tokens":["\#(token)"],"#
            + #""payload":{"aps":{"alert":"hello"}}}"#

        let (outcome, metrics, ready, health, status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", configuration])
            try produce(intent, to: "pushline.intents", servers: cluster.bootstrapServers)
            let outcome = try firstRecord(on: "pushline.outcomes", servers: cluster.bootstrapServers)
            // The outcome is counted when it is produced; Kafka's acknowledgement may come a moment later.
            var metrics = ""
            try Deadline.wait(for: "the delivery in /metrics") {
                metrics = try httpGet("/metrics", port: metricsPort).body
                return metrics.contains(#"pushline_deliveries_total{pipeline="test",status="accepted",reason="none"} 1"#)
                    && metrics.contains(#"pushline_inflight_deliveries{pipeline="test"} 0"#)
            }
            let ready = try httpGet("/readyz", port: metricsPort).status
            let health = try httpGet("/healthz", port: metricsPort).status
            let status = server.stop()  // SIGTERM
            return (outcome, metrics, ready, health, status, server.log)
        }
        #expect(status == 0, "\(log)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome)) as? [String: Any])
        #expect(json["status"] as? String == "accepted")
        #expect(json["intent_id"] as? String == "run-1")
        #expect(harness.simulator.inbox().map(\.token) == [token])
        #expect(ready == 200 && health == 200)
        #expect(metrics.contains(#"pushline_intents_consumed_total{pipeline="test",topic="pushline.intents"} 1"#))
        #expect(metrics.contains(#"pushline_apns_results_total{pool="simulator",outcome="accepted",status="200",reason="none"} 1"#))
        #expect(metrics.contains(#"pushline_redis_available{pipeline="test"} 1"#))
        let messages = log.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["message"] as? String
        }
        #expect(messages.contains("worker started") && messages.contains("partitions assigned") && messages.contains("worker stopped"), "\(log)")
    }

    @Test("PUSHLINE_TELEMETRY_BIND=::1: pushline run serves /readyz on the IPv6 loopback, nothing on 127.0.0.1, and logs the address")
    func servesOnTelemetryBind() async throws {
        let (cluster, redis, harness, metricsPort, configuration) = try await configuredStack()
        defer {
            harness.stop()
            redis.stop()
            withExtendedLifetime(cluster) {}  // pushline run reads from it; nothing here does
        }
        let (ipv4, status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", configuration],
                                           environment: ["PUSHLINE_TELEMETRY_BIND": "::1"])
            // Refused until the server listens: asked again.
            try Deadline.wait(for: "/readyz 200 on [::1]") { (try? httpGet("/readyz", port: metricsPort, host: "[::1]"))?.status == 200 }
            let ipv4 = try ExternalCommand.run(try ExternalCommand.locate("curl", package: "curl"),
                                               ["-s", "--max-time", "5", "http://127.0.0.1:\(metricsPort)/readyz"]).status
            return (ipv4, server.stop(), server.log)
        }
        #expect(ipv4 == 7, "curl: nothing listens on 127.0.0.1 (exit 7), got exit \(ipv4)")
        #expect(status == 0, "\(log)")
        #expect(log.contains(#""metrics_bind":"::1""#), "\(log)")
    }

    @Test("a 900 KB malformed intent does not stop pushline run: it becomes an invalid IntentTooLarge outcome and the next intent is accepted")
    func survivesPoisonIntent() async throws {
        let (cluster, redis, harness) = try await startStack()
        defer {
            harness.stop()
            redis.stop()
        }
        let configuration = try configurationFile(kafka: cluster.bootstrapServers, redisPort: redis.port, harness: harness,
                                                  metricsPort: UInt16(try FreePort.next()))
        let token = String(repeating: "6b", count: 32)
        let poison = #"{"schema_version":1,"id":"poison","payload":""# + String(repeating: "x", count: 900_000)
        let next = #"{"schema_version":1,"id":"run-2","app":"com.example.pushline","environment":"sandbox","tokens":["\#(token)"],"#
            + #""payload":{"aps":{"alert":"hello"}}}"#

        let (outcomes, runningAfter, status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", configuration])
            try produce(poison, to: "pushline.intents", servers: cluster.bootstrapServers)
            try produce(next, to: "pushline.intents", servers: cluster.bootstrapServers)
            let outcomes = try records(on: "pushline.outcomes", count: 2, servers: cluster.bootstrapServers)
            let runningAfter = server.isRunning
            let status = server.stop()  // SIGTERM
            return (outcomes, runningAfter, status, server.log)
        }
        #expect(runningAfter, "\(log)")
        #expect(status == 0, "\(log)")
        let json = try outcomes.map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        #expect(json.map { $0["status"] as? String } == ["invalid", "accepted"])
        #expect(json.first?["reason"] as? String == "IntentTooLarge")
        #expect(json.last?["intent_id"] as? String == "run-2")
        #expect(harness.simulator.inbox().map(\.token) == [token])
    }

    @Test("the metrics port already taken: pushline run exits 1 at start, naming telemetry.metrics_port")
    func exitsWhenMetricsPortIsTaken() async throws {
        let (cluster, redis, harness) = try await startStack()
        defer {
            harness.stop()
            redis.stop()
            withExtendedLifetime(cluster) {}
        }
        // A port from FreePort, like the other tests' (not one the kernel picks here, which could be
        // one FreePort just gave a test running beside this one).
        let taken = try Socket.listen(host: "127.0.0.1", port: UInt16(try FreePort.next()))
        defer { close(taken.descriptor) }
        let configuration = try configurationFile(kafka: cluster.bootstrapServers, redisPort: redis.port, harness: harness,
                                                  metricsPort: taken.port)
        let (status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", configuration])
            let status = server.waitForExit(graceMilliseconds: 30_000)
            return (status, server.log)
        }
        #expect(status == 1, "\(log)")
        #expect(log.contains("cannot serve metrics (telemetry.bind, telemetry.metrics_port)"), "\(log)")
    }

    @Test("a worker that fails makes pushline run exit 1 by itself, without waiting for a signal")
    func exitsWhenWorkerFails() async throws {
        let cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic("pushline.intents", partitions: 1)
        let redis = try await RedisServer.start(password: "the-right-one")
        let harness = try SimulatorHarness()
        defer {
            harness.stop()
            redis.stop()
        }
        // The wrong password: Redis refuses the worker for good (not an outage to wait out).
        let passwordFile = FileManager.default.temporaryDirectory.appendingPathComponent("redis-password-\(UUID().uuidString)").path
        try "a-wrong-one\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let configuration = try configurationFile(kafka: cluster.bootstrapServers, redisPort: redis.port, harness: harness,
                                                  metricsPort: UInt16(try FreePort.next()), redisPasswordFile: passwordFile)
        let (status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", configuration])
            let status = server.waitForExit(graceMilliseconds: 60_000)
            return (status, server.log)
        }
        #expect(status == 1, "\(log)")
        #expect(log.contains("worker failed") && log.contains("redis_server_error"), "\(log)")
        #expect(!log.contains("a-wrong-one"), "the password never reaches the log")
    }
}

/// A mock Kafka cluster with the pipeline's topics, a redis-server and a simulator, for `pushline run`.
private func startStack() async throws -> (KafkaMockCluster, RedisServer, SimulatorHarness) {
    let cluster = try KafkaMockCluster(brokers: 1)
    for topic in ["pushline.intents", "pushline.outcomes", "pushline.token-events", "pushline.dlq"] {
        try cluster.createTopic(topic, partitions: 1)
    }
    return (cluster, try await RedisServer.start(), try SimulatorHarness())
}

/// ``startStack()`` with a free metrics port and the configuration file of ``configurationFile(kafka:redisPort:harness:metricsPort:redisPasswordFile:)``.
private func configuredStack() async throws
    -> (cluster: KafkaMockCluster, redis: RedisServer, harness: SimulatorHarness, metricsPort: UInt16, configuration: String) {
    let (cluster, redis, harness) = try await startStack()
    let metricsPort = UInt16(try FreePort.next())
    let configuration = try configurationFile(kafka: cluster.bootstrapServers, redisPort: redis.port, harness: harness, metricsPort: metricsPort)
    return (cluster, redis, harness, metricsPort, configuration)
}

/// Publishes one message and waits for Kafka to acknowledge it.
private func produce(_ value: String, to topic: String, servers: String) throws {
    let acknowledged = Semaphore()
    let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: servers)) { event in
        if case .deliveryReports = event { acknowledged.signal() }
    }
    _ = try producer.send([KafkaProducerMessage(topic: topic, value: Array(value.utf8))])
    #expect(acknowledged.wait(milliseconds: 30_000), "the intent was not acknowledged")
    try producer.close()
}

/// The first record on `topic`, read from the beginning.
private func firstRecord(on topic: String, servers: String) throws -> [UInt8] {
    try records(on: topic, count: 1, servers: servers)[0]
}

/// The first `count` records on `topic`, read from the beginning.
private func records(on topic: String, count: Int, servers: String) throws -> [[UInt8]] {
    let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(bootstrapServers: servers, groupID: "run-test-reader", topics: [topic]))
    defer { try? consumer.close() }
    let deadline = Deadline(after: .seconds(60))
    var values: [[UInt8]] = []
    while values.count < count {
        try deadline.check(waitingFor: "\(count) records on \(topic)")
        values += consumer.poll(maxMessages: count - values.count, timeout: .milliseconds(100)).map { $0.value ?? [] }
    }
    return values
}

/// One GET with `curl` (an independent HTTP client) to 127.0.0.1:`port`: the status and the body.
/// GET `path` on `host` (an IPv4 address, or an IPv6 one in brackets) with curl.
private func httpGet(_ path: String, port: UInt16, host: String = "127.0.0.1") throws -> (status: Int, body: String) {
    let curl = try ExternalCommand.locate("curl", package: "curl")
    let result = try ExternalCommand.run(curl, ["-s", "-S", "-g", "-w", "\n%{http_code}", "http://\(host):\(port)\(path)"])
    guard result.status == 0 else { throw TestKitError("curl failed: \(result.standardError)") }
    var lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let status = Int(lines.removeLast()) ?? -1
    return (status, lines.joined(separator: "\n"))
}

/// LocalStack's `pushline.yaml` and pipeline (named `test`) for the mock cluster, `redisPort` and
/// the simulator of `harness`; returns the path of `pushline.yaml`.
private func configurationFile(kafka: String, redisPort: Int, harness: SimulatorHarness, metricsPort: UInt16,
                               redisPasswordFile: String? = nil) throws -> String {
    var local = LocalRunConfiguration(bootstrapServers: kafka, redisPort: redisPort, simulatorPort: harness.devicePort,
                                      caFile: harness.certificateFile)
    local.pipelineName = "test"
    local.group = "run-test"
    local.metricsPort = Int(metricsPort)
    local.redisPasswordFile = redisPasswordFile
    return try local.write()
}
