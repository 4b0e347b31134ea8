import APNsCore
import Foundation
import Kafka
import LocalStack
import Runtime

/// Reads `pushline-dev bench e2e`'s outcomes back from Kafka: counts them for the sustained rate, and
/// takes each one's latency at half load. Fails when no outcome arrives for `stallTimeout` or a
/// worker process has exited.
final class OutcomeReader {
    /// What a read-back saw: when the first and last outcomes arrived, and outcomes by status.
    struct Throughput {
        var first: MonotonicClock.Instant?
        var last: MonotonicClock.Instant?
        /// Outcomes read after the first poll that returned any: the ones the rate counts.
        var countedAfterFirst = 0
        var byStatus: [String: Int] = [:]

        /// Outcomes per second between the first poll that returned some and the last one.
        var rate: Double {
            guard let first, let last, last > first else { return 0 }
            return Double(countedAfterFirst) / (first.duration(to: last) / .seconds(1))
        }
    }

    /// One outcome's latencies, milliseconds.
    struct Latency {
        /// The intent's `created_at` (when it was produced) to the outcome's `completed_at`.
        var decided: Double
        /// The intent's `created_at` to the moment this reader had the outcome from Kafka.
        var readBack: Double
        /// The outcome's `status` (`accepted`, `suppressed`, …).
        var status: String
    }

    private let consumer: KafkaConsumer
    /// The processes producing the outcomes: a read fails when one has exited.
    var workers: [ServerProcess] = []
    private let stallTimeout: Duration
    /// Outcomes polled while waiting for the assignment, handed out first by the first read, with
    /// the moment they arrived.
    private var early: (messages: [KafkaConsumerMessage], arrived: MonotonicClock.Instant)?

    /// Joins its group and waits for its partition: create it before starting the workers, so that
    /// the first outcome is read as soon as it is produced.
    init(bootstrapServers: String, topic: String, stallTimeout: Duration = .seconds(60)) throws {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: bootstrapServers, groupID: "bench-e2e-reader", topics: [topic])
        // Hand over each outcome as soon as the broker has it, so the read-back time measures Pushline:
        // the mock broker holds a fetch that finds nothing new for the whole wait.
        configuration.additionalProperties["fetch.wait.max.ms"] = "2"
        // Fetch everything while this process is busy elsewhere (pre-loading intents), before the
        // mock broker drops the oldest: librdkafka stops fetching at 100,000 queued messages by default.
        configuration.additionalProperties["queued.min.messages"] = "10000000"
        configuration.additionalProperties["queued.max.messages.kbytes"] = "2097151"
        consumer = try KafkaConsumer(configuration: configuration)
        self.stallTimeout = stallTimeout
        try waitForAssignment()
    }

    /// Polls until the group has assigned this reader its partitions. A reader assigned late would
    /// find a backlog (and count it as arriving at once), or worse: librdkafka's mock broker keeps
    /// only the newest 100,000 messages of a partition, so a reader assigned after more than that
    /// were produced starts past the first ones and waits for them for ever.
    private func waitForAssignment(timeout: Duration = .seconds(60)) throws {
        let deadline = Deadline(after: timeout)
        while consumer.assignment.isEmpty {
            guard !deadline.hasPassed else { throw LocalStackError("the outcome reader had no partition after \(timeout)") }
            let batch = consumer.poll(maxMessages: 5000, timeout: .milliseconds(50))
            if !batch.isEmpty { early = ((early?.messages ?? []) + batch, MonotonicClock.now) }
        }
    }

    /// Reads until `total` outcomes, counting statuses; reports progress every second.
    func count(_ total: Int, progress: (String) -> Void) throws -> Throughput {
        var throughput = Throughput()
        var received = 0
        try read(total) { batch, now in
            if throughput.first == nil {
                throughput.first = now
            } else {
                throughput.countedAfterFirst += batch.count
            }
            throughput.last = now
            received += batch.count
            for message in batch { throughput.byStatus[Self.status(of: message.value ?? []), default: 0] += 1 }
        } progress: {
            progress("\(received)/\(total) outcomes, \(Int(throughput.rate)) per second so far")
        }
        return throughput
    }

    /// Reads until `total` outcomes and returns their latencies.
    func latencies(_ total: Int, progress: (String) -> Void) throws -> [Latency] {
        var latencies: [Latency] = []
        latencies.reserveCapacity(total)
        var slowestThisSecond = 0.0
        try read(total) { batch, _ in
            let now = Double(WallClock.millisecondsSinceEpoch())
            for message in batch {
                guard let outcome = try? JSONParser.parse(message.value ?? []).objectValue,
                      let created = outcome["created_at"]?.numberValue, let completed = outcome["completed_at"]?.numberValue,
                      let status = outcome["status"]?.stringValue else {
                    throw LocalStackError("an outcome without created_at, completed_at and status: \(String(decoding: message.value ?? [], as: UTF8.self))")
                }
                latencies.append(Latency(decided: completed - created, readBack: now - created, status: status))
                slowestThisSecond = max(slowestThisSecond, now - created)
            }
        } progress: {
            progress("\(latencies.count)/\(total) outcomes read back, the slowest of the last second \(Int(slowestThisSecond)) ms")
            slowestThisSecond = 0
        }
        return latencies
    }

    func close() throws {
        try consumer.close()
    }

    /// Reads until `total` outcomes, handing each batch to `take` with the moment it arrived;
    /// `progress` every second.
    func read(_ total: Int, _ take: ([KafkaConsumerMessage], MonotonicClock.Instant) throws -> Void,
                      progress: () -> Void) throws {
        var read = 0
        var lastArrival = MonotonicClock.now
        var nextReport = MonotonicClock.now + .seconds(1)
        while read < total {
            let (batch, now) = early.take() ?? (consumer.poll(maxMessages: 5000, timeout: .milliseconds(50)), MonotonicClock.now)
            if !batch.isEmpty {
                consumer.complete(batch)
                try take(batch, now)
                read += batch.count
                lastArrival = now
            } else if lastArrival.duration(to: now) > stallTimeout {
                throw LocalStackError("no outcome for \(stallTimeout) after \(read)/\(total); "
                                      + "the workers' logs: \(workers.map(\.logFile))")
            }
            if let exited = workers.first(where: { !$0.isRunning }) {
                throw LocalStackError("a worker exited after \(read)/\(total) outcomes: \(exited.log.suffix(2000))")
            }
            if now >= nextReport {
                progress()
                nextReport = now + .seconds(1)
            }
        }
    }

    /// The outcome's `status` without parsing the whole record (the read-back must not take the
    /// worker's CPU): the writer puts `"status":"…"` without spaces. Looked for at each quote
    /// through a buffer pointer: a generic `starts(with:)` tried at every offset of the array cost
    /// this process about 7 % of its CPU in the sustained phase (docs/BENCHMARKS.md).
    private static func status(of outcome: [UInt8]) -> String {
        outcome.withUnsafeBufferPointer { record in
            statusMarker.withUnsafeBufferPointer { marker in
                var offset = 0
                while offset + marker.count <= record.count {
                    if record[offset] == marker[0], UnsafeBufferPointer(rebasing: record[offset..<offset + marker.count]).elementsEqual(marker) {
                        let value = record[(offset + marker.count)...].prefix { $0 != UInt8(ascii: "\"") }
                        return String(decoding: value, as: UTF8.self)
                    }
                    offset += 1
                }
                return "unknown"
            }
        }
    }

    private static let statusMarker = Array(#""status":""#.utf8)
}
