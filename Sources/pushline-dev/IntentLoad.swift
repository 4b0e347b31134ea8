import Foundation
import Kafka
import LocalStack
import Synchronization
import Runtime

/// The intents of `pushline-dev bench e2e` and the producer that puts them on Kafka: those of a
/// ``BenchWorkload``, token-addressed ones to `tokensPerIntent` device tokens no other intent uses —
/// or, with a token pool, tokens taken in turn from a pool of that many (a server that accepts only
/// known tokens) — and `created_at` the moment each is produced.
final class IntentLoad: Sendable {
    private let bootstrapServers: String
    private let topic: String
    private let workload: BenchWorkload
    private let tokensPerIntent: Int
    private let tokenPool: Int?
    /// Top-level fields every intent gets (each followed by a comma), such as the policy fields of
    /// `--policies on`.
    private let fields: String
    /// The partition of intent `index`; the partitioner's choice when it gives nil.
    private let partition: @Sendable (Int) -> Int32?
    private let producer: KafkaProducer
    private let acknowledged: Acknowledgements

    init(bootstrapServers: String, topic: String, workload: BenchWorkload, tokensPerIntent: Int, tokenPool: Int? = nil, fields: String = "",
         partition: @escaping @Sendable (Int) -> Int32? = { _ in nil }) throws {
        self.bootstrapServers = bootstrapServers
        self.topic = topic
        self.fields = fields
        self.partition = partition
        self.workload = workload
        self.tokensPerIntent = tokensPerIntent
        self.tokenPool = tokenPool
        let acknowledged = Acknowledgements()
        producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: bootstrapServers)) { event in
            if case .deliveryReports(let reports) = event { acknowledged.add(reports) }
        }
        self.acknowledged = acknowledged
    }

    /// Produces the intents of `range` as fast as Kafka takes them and waits until every
    /// one is acknowledged.
    func preload(_ range: Range<Int>, progress: (String) -> Void) throws {
        let start = acknowledged.count
        for chunk in stride(from: range.lowerBound, to: range.upperBound, by: 10_000) {
            _ = try producer.send((chunk..<min(chunk + 10_000, range.upperBound)).map(message))
            progress("pre-loaded \(min(chunk + 10_000, range.upperBound) - range.lowerBound)/\(range.count) intents")
        }
        try waitForAcknowledgements(start + range.count)
    }

    /// Pre-loads the intents of `range` (``preload(_:progress:)``) for workers that start afterwards,
    /// and throws when the topic no longer holds all of them: librdkafka's mock broker keeps only a
    /// partition's newest 5 MB or 100,000 batches (`rdkafka_mock.c`), so intents beyond that are
    /// deleted before any worker reads them, and a run would wait in vain for their outcomes. (With
    /// workers reading meanwhile, what the broker deletes may have been read: not checked there.)
    func preloadBeforeWorkers(_ range: Range<Int>, progress: (String) -> Void) throws {
        try preload(range, progress: progress)
        let reader = try KafkaTopicReader(configuration: KafkaReaderConfiguration(bootstrapServers: bootstrapServers))
        for partition in try reader.partitions(of: topic) {
            let kept = try reader.watermarks(of: KafkaTopicPartition(topic: topic, partition: partition))
            guard kept.lowerBound == 0 else {
                throw LocalStackError("partition \(partition) of \(topic) kept only offsets \(kept.lowerBound)..<\(kept.upperBound): "
                                      + "librdkafka's mock broker keeps only a partition's newest 5 MB or 100,000 batches, so the "
                                      + "\(kept.lowerBound) intents before them were deleted before any worker read them; give fewer "
                                      + "--intents or more --partitions (larger intents — sealed, more --tokens, --policies on — fit fewer)")
            }
        }
    }

    /// Produces the intents of `range` at a steady `intentsPerSecond` (a share every millisecond),
    /// then waits until Kafka acknowledged them all.
    func produceSteadily(_ range: Range<Int>, intentsPerSecond: Double, progress: (String) -> Void) throws {
        let start = acknowledged.count
        let began = MonotonicClock.now
        var sent = 0
        var nextReport = began + .seconds(1)
        while sent < range.count {
            let due = min(range.count, Int(intentsPerSecond * (began.duration(to: .now) / .seconds(1))))
            if due > sent {
                _ = try producer.send((range.lowerBound + sent..<range.lowerBound + due).map(message))
                sent = due
            }
            if MonotonicClock.now >= nextReport {
                progress("produced \(sent)/\(range.count) intents at \(Int(intentsPerSecond))/s")
                nextReport += .seconds(1)
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        try waitForAcknowledgements(start + sent)
    }

    func close() throws {
        try producer.close()
    }

    /// Device token `number` (from 0) as hex: the number + 1 in 64 hex digits.
    static func token(_ number: Int) -> String {
        String(format: "%064x", number + 1)
    }

    /// The token numbers the intents of `range` address (with a pool, at most the pool).
    func tokenNumbers(_ range: Range<Int>) -> Range<Int> {
        let numbers = range.lowerBound * tokensPerIntent..<range.upperBound * tokensPerIntent
        return tokenPool.map { 0..<min($0, numbers.upperBound) } ?? numbers
    }

    /// Intent `index` of the workload, created now, keyed by a hash of its bytes: keyless messages go
    /// to one partition per producer batch (librdkafka's sticky partitioning), which would leave all
    /// but one member of a group of workers idle; hashed keys spread them as recipients' keys do, and
    /// a byte copy of an intent (the mixed workload's duplicates) lands on its original's partition.
    private func message(_ index: Int) -> KafkaProducerMessage {
        let intent = workload.intent(index, tokensPerIntent: tokensPerIntent, createdAt: WallClock.millisecondsSinceEpoch()) { number in
            tokenPool.map { number % $0 } ?? number
        }
        // Every intent is a JSON object: the fields go right after its opening brace.
        let value = Array((fields.isEmpty ? intent : "{" + fields + intent.dropFirst()).utf8)
        return KafkaProducerMessage(topic: topic, partition: partition(index), key: Self.key(of: value), value: value)
    }

    /// FNV-1a (64-bit) of `value`, as 16 hex digits.
    private static func key(of value: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in value {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Array(String(hash, radix: 16).utf8)
    }

    private func waitForAcknowledgements(_ total: Int) throws {
        try Deadline.wait(.seconds(120), for: "Kafka to acknowledge \(total) intents") {
            if let failure = acknowledged.failure { throw LocalStackError("an intent was not produced: \(failure)") }
            return acknowledged.count >= total
        }
    }
}

/// Delivery reports counted from the producer's callback thread.
private final class Acknowledgements: Sendable {
    private let state = Mutex<(count: Int, failure: String?)>((0, nil))

    func add(_ reports: [KafkaDeliveryReport]) {
        state.withLock { state in
            state.count += reports.count
            for report in reports where state.failure == nil {
                if case .failure(let error) = report.result { state.failure = "\(error)" }
            }
        }
    }

    var count: Int { state.withLock { $0.count } }
    var failure: String? { state.withLock { $0.failure } }
}
