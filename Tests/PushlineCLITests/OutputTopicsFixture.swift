import APNsCore
import Foundation
import Kafka
import OutputTopics
import PushlineTestKit

/// A `LocalPipeline` (mock Kafka, redis-server, the in-process simulator, a worker) that has handled
/// the demo's example intents (Pipelines/examples): 7 accepted (no frequency cap here), a `DuplicateIntent`, an `Unregistered`
/// token and a `MalformedJSON` intent with its dead letter. Plus, written straight to the outcomes
/// topic, a byte copy of the first outcome, as a redelivery may leave one (docs/worker.md).
/// Blocking: build it on a dedicated thread.
final class OutputTopicsFixture: Sendable {
    static let unregisteredToken = String(repeating: "0410", count: 16)
    static let unregisteredAt: Int64 = 1_700_000_000_000
    static let outcomesTopic = "pushline.outcomes"
    static let deadLetterTopic = "pushline.dlq"

    let pipeline: LocalPipeline
    /// The worker's outcomes as it wrote them, in order (the copy not included).
    let outcomes: [[UInt8]]

    var brokers: String { pipeline.cluster.bootstrapServers }

    init() throws {
        pipeline = try LocalPipeline(unregistered: [(token: try DeviceToken(Self.unregisteredToken), at: Self.unregisteredAt)])
        let directory = RepositoryPaths.file("Pipelines/examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        try pipeline.publish(try files.map { Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0))) })
        let outputs = try pipeline.outputs(waitingFor: "10 outcomes and a dead letter") { received in
            received.count { $0.topic == Self.outcomesTopic } >= 10 && received.contains { $0.topic == Self.deadLetterTopic }
        }
        outcomes = outputs.filter { $0.topic == Self.outcomesTopic }.map(\.value)
        try Self.produce([KafkaProducerMessage(topic: Self.outcomesTopic, partition: 0, value: outcomes[0])], brokers: brokers)
    }

    /// Writes messages and waits until Kafka has each.
    static func produce(_ messages: [KafkaProducerMessage], brokers: String) throws {
        for result in try KafkaPublication.publish(messages, configuration: KafkaProducerConfiguration(bootstrapServers: brokers)) {
            _ = try result.get()
        }
    }

    func stop() throws {
        try pipeline.stop()
    }
}

/// Runs the built `pushline` with `arguments` from a dedicated thread.
func pushlineOffPool(_ arguments: [String]) async throws -> CommandResult {
    try await DedicatedThread.run { try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), arguments) }
}

/// A JSON object of a command's output.
func jsonObject(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}

/// A JSON object of a record's bytes.
func jsonObject(_ bytes: [UInt8]) -> [String: Any] {
    jsonObject(String(decoding: bytes, as: UTF8.self))
}
