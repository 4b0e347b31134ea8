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
    @Test("runs the pipeline of a configuration: an intent becomes an accepted outcome and a notification; SIGTERM exits 0")
    func runsPipeline() async throws {
        let cluster = try KafkaMockCluster(brokers: 1)
        for topic in ["pushline.intents", "pushline.outcomes", "pushline.token-events", "pushline.dlq"] {
            try cluster.createTopic(topic, partitions: 1)
        }
        let redis = try await RedisServer.start()
        let harness = try SimulatorHarness()
        defer {
            harness.stop()
            redis.stop()
        }
        let directory = try writeConfiguration(kafka: cluster.bootstrapServers, redisPort: redis.port, simulatorPort: harness.devicePort,
                                               caFile: harness.certificateFile)
        let token = String(repeating: "5a", count: 32)
        let intent = #"{"schema_version":1,"id":"run-1","app":"com.example.pushline","environment":"sandbox","tokens":["\#(token)"],"#
            + #""payload":{"aps":{"alert":"hello"}}}"#

        let (outcome, status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", directory + "/pushline.yaml"])
            try produce(intent, to: "pushline.intents", servers: cluster.bootstrapServers)
            let outcome = try firstRecord(on: "pushline.outcomes", servers: cluster.bootstrapServers)
            let status = server.stop()  // SIGTERM
            return (outcome, status, server.log)
        }
        #expect(status == 0, "\(log)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome)) as? [String: Any])
        #expect(json["status"] as? String == "accepted")
        #expect(json["intent_id"] as? String == "run-1")
        #expect(harness.simulator.inbox().map(\.token) == [token])
    }

    /// `pushline.yaml` and one pipeline in a fresh directory; returns the directory.
    private func writeConfiguration(kafka: String, redisPort: Int, simulatorPort: UInt16, caFile: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/pipelines", withIntermediateDirectories: true)
        try """
            kafka:
              bootstrap_servers: [\(kafka)]
            redis:
              host: 127.0.0.1
              port: \(redisPort)
            apns:
              credentials:
                dev:
                  key_file: \(DevCredentials.privateKeyFile)
                  key_id: \(DevCredentials.keyID)
                  team_id: \(DevCredentials.teamID)
              pools:
                - name: simulator
                  credentials: dev
                  environment: localhost:\(simulatorPort)
                  ca_file: \(caFile)
            pipelines: pipelines
            """.write(toFile: directory + "/pushline.yaml", atomically: true, encoding: .utf8)
        try """
            name: test
            source:
              topic: pushline.intents
              group: run-test
            templates: \(RepositoryPaths.file("Config/templates"))
            locales: \(RepositoryPaths.file("Config/locales"))
            apns_pool: simulator
            """.write(toFile: directory + "/pipelines/test.yaml", atomically: true, encoding: .utf8)
        return directory
    }
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
    let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(bootstrapServers: servers, groupID: "run-test-reader", topics: [topic]))
    defer { try? consumer.close() }
    let deadline = Deadline(.seconds(60), waitingFor: "a record on \(topic)")
    while true {
        try deadline.check()
        if let message = consumer.poll(maxMessages: 1, timeout: .milliseconds(100)).first { return message.value ?? [] }
    }
}
