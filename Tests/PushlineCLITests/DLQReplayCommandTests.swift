import APNsCore
import Enrichment
import Foundation
import Kafka
import PushlineTestKit
import Testing
import TLS
import Worker

/// `pushline dlq replay` as a subprocess: a dead-lettered intent replayed once its cause is fixed is
/// delivered once, and replaying it again sends nothing more; originals longer than a dead letter's
/// copy are fetched from their source and checked; a source that is gone is a per-record error.
@Suite("pushline dlq replay", .serialized, .timeLimit(.minutes(3)))
struct DLQReplayCommandTests {
    static let token = String(repeating: "7e57", count: 16)

    @Test("an intent dead-lettered for an unknown template, replayed once the template exists, is delivered once; a second replay sends nothing")
    func replayDeliversOnce() async throws {
        let pipeline = try await DedicatedThread.run { try LocalPipeline() }
        let intent = #"{"id":"replay-1","app":"com.example.pushline","environment":"sandbox","tokens":["\#(Self.token)"],"#
            + #""template":"replay_sync","args":{"scope":"inbox"}}"#
        let firstOutputs = try await DedicatedThread.run { () throws -> [(topic: String, value: [UInt8])] in
            try pipeline.publish([Array(intent.utf8)])
            return try pipeline.outputs(waitingFor: "the outcome and the dead letter") { received in
                received.contains { $0.topic == "pushline.outcomes" } && received.contains { $0.topic == "pushline.dlq" }
            }
        }
        let firstOutcome = jsonObject(firstOutputs.first { $0.topic == "pushline.outcomes" }?.value ?? [])
        #expect(firstOutcome["status"] as? String == "invalid")
        #expect(firstOutcome["reason"] as? String == "UnknownTemplate")

        // The fix: the app's templates with replay_sync added, served by a new worker of the same group.
        let templates = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-templates-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
        let file = "com.example.pushline.yaml"
        let original = try String(contentsOfFile: RepositoryPaths.file("Config/templates/" + file), encoding: .utf8)
        try (original + "\n  replay_sync:\n    push_type: background\n    custom:\n      sync_scope: \"{{scope}}\"\n")
            .write(toFile: templates + "/" + file, atomically: true, encoding: .utf8)
        let fixed = try await DedicatedThread.run { () throws -> Worker in
            try pipeline.worker.stop()
            var configuration = LocalPipeline.workerConfiguration(kafka: pipeline.cluster.bootstrapServers, redisPort: pipeline.redis!.port)
            configuration.consumer.sessionTimeout = .seconds(3)
            let catalog = try CatalogStore(templatesDirectory: templates, localesDirectory: RepositoryPaths.file("Config/locales"))
            let worker = try Worker(configuration: configuration, catalog: catalog, sender: pipeline.sender)
            worker.start()
            return worker
        }

        let brokers = pipeline.cluster.bootstrapServers
        let dryRun = try await pushlineOffPool(["dlq", "replay", "--brokers", brokers, "--reason", "UnknownTemplate", "--dry-run"])
        let intentsAfterDryRun = try await DedicatedThread.run { try Self.intentsEnd(brokers) }
        let replay = try await pushlineOffPool(["dlq", "replay", "--brokers", brokers, "--reason", "UnknownTemplate"])
        let accepted = try await Self.outcomes(2, of: pipeline)
        let inboxAfterReplay = pipeline.harness.simulator.inbox().count { $0.token == Self.token }
        let secondReplay = try await pushlineOffPool(["dlq", "replay", "--brokers", brokers])
        let afterSecond = try await Self.outcomes(3, of: pipeline)
        let inboxAfterSecond = pipeline.harness.simulator.inbox().count { $0.token == Self.token }
        try await DedicatedThread.run {
            try fixed.stop()
            try pipeline.stop()
        }

        #expect(dryRun.status == 0, "\(dryRun.standardError)")
        #expect(dryRun.standardOutput.hasPrefix("would replay pushline.dlq[0]@0 UnknownTemplate replay-1 -> pushline.intents[0] ("))
        #expect(dryRun.standardOutput.contains("whole copy"))
        #expect(intentsAfterDryRun == 1, "a dry run publishes nothing")
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(replay.standardOutput == "replayed pushline.dlq[0]@0 UnknownTemplate replay-1 -> pushline.intents[0]@1\n")
        #expect(accepted.last?["intent_id"] as? String == "replay-1")
        #expect(accepted.last?["status"] as? String == "accepted")
        #expect(inboxAfterReplay == 1)
        #expect(secondReplay.status == 0, "\(secondReplay.standardError)")
        #expect(afterSecond.count == 3)
        #expect(afterSecond.last?["status"] as? String == "suppressed")
        #expect(afterSecond.last?["reason"] as? String == "DuplicateIntent")
        #expect(inboxAfterSecond == 1, "the second replay sent nothing")
    }

    @Test("an original longer than the dead letter's copy is fetched from its source, with its key, and checked; a gone or changed source is a per-record error")
    func fetchesLongOriginals() async throws {
        let cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic("pushline.intents", partitions: 2)
        try cluster.createTopic("pushline.dlq", partitions: 1)
        let long = Array(#"{"id":"long-1","pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 10_000) + Array(#""}"#.utf8)
        let brokers = cluster.bootstrapServers
        try await DedicatedThread.run {
            try OutputTopicsFixture.produce([KafkaProducerMessage(topic: "pushline.intents", partition: 1, key: Array("user-7".utf8), value: long)],
                                            brokers: brokers)
            try OutputTopicsFixture.produce([
                Self.deadLetter(long, sourceOffset: 0, sha256: SHA256Digest.hex(long)),
                Self.deadLetter(long, sourceOffset: 5, sha256: SHA256Digest.hex(long)),
                Self.deadLetter(long, sourceOffset: 0, sha256: String(repeating: "0", count: 64)),
            ], brokers: brokers)
        }
        let replay = try await pushlineOffPool(["dlq", "replay", "--brokers", brokers])
        let copy = try await DedicatedThread.run { () throws -> KafkaConsumerMessage in
            let reader = try KafkaTopicReader(configuration: KafkaReaderConfiguration(bootstrapServers: brokers))
            return try reader.message(at: 1, of: KafkaTopicPartition(topic: "pushline.intents", partition: 1))
        }

        #expect(replay.status == 1, "\(replay.standardError)")
        let lines = replay.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("replayed pushline.dlq[0]@0 IntentTooLarge long-1 -> pushline.intents[1]@1"))
        #expect(lines.contains { $0.hasPrefix("error pushline.dlq[0]@1 SourceGone the original (\(long.count) bytes, the dead letter has its first 4096) "
                + "is no longer at pushline.intents[1]@5") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("error pushline.dlq[0]@2 ChecksumMismatch the message at pushline.intents[1]@0 has SHA-256 ") })
        #expect(replay.standardError.contains("1 replayed, 2 not"))
        #expect(copy.value == long)
        #expect(copy.key == Array("user-7".utf8))
    }

    /// A dead letter of `original` (its first 4096 bytes) read at `sourceOffset` of pushline.intents[1].
    private static func deadLetter(_ original: [UInt8], sourceOffset: Int64, sha256: String) -> KafkaProducerMessage {
        let record: [String: Any] = [
            "schema_version": 1, "reason": "IntentTooLarge", "detail": "test", "intent_id": "long-1",
            "source": ["topic": "pushline.intents", "partition": 1, "offset": sourceOffset],
            "original_size": original.count, "original_sha256": sha256,
            "original_base64": Data(original.prefix(4096)).base64EncodedString(), "recorded_at": 1_764_000_000_000,
        ]
        return KafkaProducerMessage(topic: "pushline.dlq", partition: 0, value: Array(try! JSONSerialization.data(withJSONObject: record)))
    }

    /// The pipeline's outcomes once there are `count`, as JSON objects.
    private static func outcomes(_ count: Int, of pipeline: LocalPipeline) async throws -> [[String: Any]] {
        try await DedicatedThread.run {
            try pipeline.outputs(waitingFor: "\(count) outcomes") { received in
                received.count { $0.topic == "pushline.outcomes" } >= count
            }.filter { $0.topic == "pushline.outcomes" }.map(\.value)
        }.map(jsonObject)
    }

    /// The end offset of pushline.intents[0].
    private static func intentsEnd(_ brokers: String) throws -> Int64 {
        let reader = try KafkaTopicReader(configuration: KafkaReaderConfiguration(bootstrapServers: brokers))
        return try reader.watermarks(of: KafkaTopicPartition(topic: "pushline.intents", partition: 0)).upperBound
    }
}
