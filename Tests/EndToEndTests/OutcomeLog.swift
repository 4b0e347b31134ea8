import Foundation
import Kafka
import PushlineTestKit

/// The outcomes on `pushline.outcomes`, read from the beginning by a consumer group of its own.
final class OutcomeLog {
    /// One outcome event, the fields the tests check.
    struct Outcome: Sendable {
        let intentID: String
        let token: String
        let status: String
        let reason: String?
        let partition: Int32
        let offset: Int64
        /// The event as Kafka has it.
        let raw: String
    }

    private(set) var outcomes: [Outcome] = []
    private let consumer: KafkaConsumer
    /// The outcome records read, by their own position on `pushline.outcomes`: after a Kafka outage
    /// this reader's group may hand it records again that it read before its last commit, and a
    /// record read twice is not an outcome emitted twice.
    private var readOffsets: [KafkaTopicPartition: Set<Int64>] = [:]

    init(_ stack: EndToEndStack) throws {
        consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            bootstrapServers: stack.cluster.bootstrapServers, groupID: "e2e-reader-\(UUID().uuidString)", topics: ["pushline.outcomes"]))
    }

    deinit {
        try? consumer.close()
    }

    /// Reads until `done` holds for everything read so far (or fails after `timeout`); returns it.
    @discardableResult
    func read(timeout: Duration = .seconds(60), waitingFor what: String, until done: ([Outcome]) -> Bool) throws -> [Outcome] {
        let deadline = Deadline(after: timeout)
        while !done(outcomes) {
            try deadline.check(waitingFor: "\(what) (\(outcomes.count) outcomes read)")
            let batch = consumer.poll(maxMessages: 1000, timeout: .milliseconds(50))
            consumer.complete(batch)
            outcomes += try batch.filter { readOffsets[$0.topicPartition, default: []].insert($0.offset).inserted }.map(Self.decode)
        }
        return outcomes
    }

    /// Reads until no outcome has arrived for `quiet` (after every producer of them has stopped:
    /// the rest of what they wrote); returns everything read.
    @discardableResult
    func readUntilQuiet(_ quiet: Duration = .seconds(2)) throws -> [Outcome] {
        var quietSince = MonotonicClock.now
        var lastCount = outcomes.count
        return try read(timeout: .seconds(60), waitingFor: "\(quiet) without a new outcome") { outcomes in
            if outcomes.count != lastCount {
                lastCount = outcomes.count
                quietSince = .now
            }
            return MonotonicClock.now >= quietSince + quiet
        }
    }

    /// Reads until every intent of `range` has at least one outcome.
    @discardableResult
    func readAll(_ range: Range<Int>, timeout: Duration = .seconds(60)) throws -> [Outcome] {
        try read(timeout: timeout, waitingFor: "outcomes of intents \(range)") { outcomes in
            Set(outcomes.map(\.intentID)).isSuperset(of: range.map { "e2e-\($0)" })
        }
    }

    private static func decode(_ message: KafkaConsumerMessage) throws -> Outcome {
        guard let json = try JSONSerialization.jsonObject(with: Data(message.value ?? [])) as? [String: Any],
              let intentID = json["intent_id"] as? String, let status = json["status"] as? String,
              let source = json["source"] as? [String: Any], let partition = source["partition"] as? Int, let offset = source["offset"] as? Int else {
            throw TestKitError("an outcome without intent_id, status or source: \(String(decoding: message.value ?? [], as: UTF8.self))")
        }
        return Outcome(intentID: intentID, token: json["token"] as? String ?? "", status: status, reason: json["reason"] as? String,
                       partition: Int32(partition), offset: Int64(offset), raw: String(decoding: message.value ?? [], as: UTF8.self))
    }
}
