import APNsCore
import Foundation
import Kafka
import LocalStack
import Runtime

/// What `pushline-dev bench faults` reads back from the worker's outputs, on a thread of its own: every
/// outcome on `pushline.outcomes`, keyed by the source position of its intent (so an intent that
/// is not JSON, whose id nobody knows, still has its outcome found), and the dead letters on
/// `pushline.dlq`.
final class BenchFaultsLedger: Sendable {
    /// The counts at one moment.
    struct Counts {
        /// Outcome events read, duplicates included.
        var outcomes = 0
        var byStatus: [String: Int] = [:]
        var deadLetters = 0
    }

    private struct State {
        var counts = Counts()
        /// Outcome events per source position (``BenchFaultsTraffic/position(partition:offset:)``).
        var perPosition: [Int64: Int] = [:]
        /// When each poll that returned an `accepted` outcome returned.
        var acceptedArrivals: [MonotonicClock.Instant] = []
        var lastArrival = MonotonicClock.now
        /// When the last intent so far to get its first outcome got it.
        var lastFirstOutcome: MonotonicClock.Instant?
        var stopping = false
        var failure: String?
    }

    private let state = LockedState(State())
    private let reader: BackgroundWork

    init(bootstrapServers: String, outcomesTopic: String, dlqTopic: String) throws {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: bootstrapServers, groupID: "bench-faults-reader-\(UUID().uuidString)",
                                                       topics: [outcomesTopic, dlqTopic])
        configuration.additionalProperties["fetch.wait.max.ms"] = "2"
        // The brokers going away when a row ends are not news.
        configuration.additionalProperties["log_level"] = "2"
        let consumer = try KafkaConsumer(configuration: configuration)
        let state = state
        reader = BackgroundWork {
            while !state.withLock({ $0.stopping }) {
                let batch = consumer.poll(maxMessages: 5000, timeout: .milliseconds(50))
                guard !batch.isEmpty else { continue }
                consumer.complete(batch)
                let now = MonotonicClock.now
                var read: [(position: Int64, status: String)] = []
                var deadLetters = 0
                for message in batch {
                    if message.topicPartition.topic == dlqTopic {
                        deadLetters += 1
                    } else if let outcome = Self.outcome(message.value ?? []) {
                        read.append(outcome)
                    } else {
                        state.withLock { $0.failure = $0.failure ?? "an outcome without status or source: \(String(decoding: (message.value ?? []).prefix(300), as: UTF8.self))" }
                    }
                }
                state.withLock { state in
                    state.counts.deadLetters += deadLetters
                    state.counts.outcomes += read.count
                    for outcome in read {
                        state.counts.byStatus[outcome.status, default: 0] += 1
                        if state.perPosition[outcome.position] == nil { state.lastFirstOutcome = now }
                        state.perPosition[outcome.position, default: 0] += 1
                    }
                    if read.contains(where: { $0.status == "accepted" }) { state.acceptedArrivals.append(now) }
                    state.lastArrival = now
                }
            }
            try consumer.close()
        }
    }

    var counts: Counts { state.withLock { $0.counts } }

    /// How many of `positions` have no outcome yet.
    func withoutOutcome(_ positions: Set<Int64>) -> Int {
        state.withLock { state in positions.count { state.perPosition[$0] == nil } }
    }

    /// When the first poll after `instant` that returned an `accepted` outcome returned.
    func firstAccepted(after instant: MonotonicClock.Instant) -> MonotonicClock.Instant? {
        state.withLock { state in state.acceptedArrivals.first { $0 > instant } }
    }

    /// When the last intent so far to get its first outcome got it: once every intent has one, when
    /// the backlog was done.
    var lastFirstOutcome: MonotonicClock.Instant? { state.withLock { $0.lastFirstOutcome } }

    /// When the last outcome or dead letter arrived.
    var lastArrival: MonotonicClock.Instant { state.withLock { $0.lastArrival } }

    /// Throws when an outcome could not be read.
    func check() throws {
        if let failure = state.withLock({ $0.failure }) { throw LocalStackError(failure) }
    }

    /// Stops reading and waits for the reader.
    func close() throws {
        state.withLock { $0.stopping = true }
        try reader.wait(timeout: .seconds(60))
    }

    /// The outcome's `status` and the source position of its intent, without a full decode.
    private static func outcome(_ bytes: [UInt8]) -> (position: Int64, status: String)? {
        guard case .object(let outcome)? = try? JSONParser.parse(bytes), let status = outcome["status"]?.stringValue,
              case .object(let source)? = outcome["source"], let partition = source["partition"]?.numberValue,
              let offset = source["offset"]?.numberValue else { return nil }
        return (BenchFaultsTraffic.position(partition: Int32(partition), offset: Int64(offset)), status)
    }

}
