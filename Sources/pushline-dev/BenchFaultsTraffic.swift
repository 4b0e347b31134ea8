import Foundation
import Kafka
import LocalStack
import Runtime

/// The intents of one row of `pushline-dev bench faults` and the producer that puts them on Kafka.
/// Intent `n` is a raw alert to device token `n` alone (so a device notified twice is a delivery
/// sent twice), and among them, when asked, poison: random bytes, malformed JSON, or an intent that
/// looks valid but is too large, up to ``poisonMaximumBytes``. Every message Kafka acknowledged
/// is kept by its position (partition, offset), where its outcome points back to.
final class BenchFaultsTraffic: Sendable {
    /// The largest poison intent.
    static let poisonMaximumBytes = 2 * 1024 * 1024

    private struct State {
        var published: Set<Int64> = []
        var failures = 0
        var firstFailure: String?
    }

    private let topic: String
    private let producer: KafkaProducer
    private let state: LockedState<State>

    init(bootstrapServers: String, topic: String) throws {
        self.topic = topic
        let state = LockedState(State())
        var configuration = KafkaProducerConfiguration(bootstrapServers: bootstrapServers)
        // Room for a 2 MB poison intent: librdkafka refuses messages over message.max.bytes (1 MB by
        // default) before they reach the broker.
        configuration.additionalProperties["message.max.bytes"] = String(Self.poisonMaximumBytes + 64 * 1024)
        // Its failures come back in delivery reports; the brokers going away when a row ends are not news.
        configuration.additionalProperties["log_level"] = "2"
        producer = try KafkaProducer(configuration: configuration) { event in
            guard case .deliveryReports(let reports) = event else { return }
            state.withLock { state in
                for report in reports {
                    switch report.result {
                    case .success(let offset):
                        state.published.insert(Self.position(partition: report.topicPartition.partition, offset: offset))
                    case .failure(let error):
                        state.failures += 1
                        state.firstFailure = state.firstFailure ?? "\(error)"
                    }
                }
            }
        }
        self.state = state
    }

    /// One number for a source position, the key outcomes are matched by.
    static func position(partition: Int32, offset: Int64) -> Int64 {
        Int64(partition) << 40 | offset
    }

    /// The positions of every message Kafka acknowledged so far.
    var published: Set<Int64> { state.withLock { $0.published } }

    /// Produces intents `range` (poison where `isPoison` says so) as fast as Kafka takes them, and
    /// waits until every one is acknowledged.
    func preload(_ range: Range<Int>, isPoison: (Int) -> Bool = { _ in false }) throws {
        for chunk in stride(from: range.lowerBound, to: range.upperBound, by: 10_000) {
            _ = try producer.send((chunk..<min(chunk + 10_000, range.upperBound)).map { message($0, poison: isPoison($0)) })
        }
        try waitForAcknowledgements(range.upperBound)
    }

    /// Produces intents `range` at about `perSecond` (a share every 10 ms) and waits until every one
    /// is acknowledged.
    func produceSteadily(_ range: Range<Int>, perSecond: Double, isPoison: (Int) -> Bool = { _ in false }) throws {
        let began = MonotonicClock.now
        var sent = range.lowerBound
        while sent < range.upperBound {
            let due = min(range.upperBound, range.lowerBound + Int(perSecond * (began.duration(to: .now) / .seconds(1))))
            if due > sent {
                _ = try producer.send((sent..<due).map { message($0, poison: isPoison($0)) })
                sent = due
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        try waitForAcknowledgements(range.upperBound)
    }

    func close() throws {
        try producer.close()
    }

    /// Device token `index` in hex, as the simulator's inbox writes it.
    static func token(_ index: Int) -> String {
        String(format: "%064x", index + 1)
    }

    private func message(_ index: Int, poison: Bool) -> KafkaProducerMessage {
        KafkaProducerMessage(topic: topic, value: poison ? Self.poison(index) : Self.intent(index))
    }

    private static func intent(_ index: Int) -> [UInt8] {
        Array("""
            {"schema_version":1,"id":"faults-\(index)","app":"\(LocalPipeline.app)","environment":"sandbox",\
            "tokens":["\(token(index))"],"payload":{"aps":{"alert":"fault matrix \(index)"}}}
            """.utf8)
    }

    /// Poison in turn: random bytes, JSON cut off in the middle, and a well-formed intent whose
    /// alert makes it far larger than any limit. Sizes spread evenly over the orders of magnitude
    /// from 1 KiB to ``poisonMaximumBytes`` (log-uniform), and every tenth poison is the largest:
    /// the mock broker keeps only the newest 5 MB of a partition (`rdkafka_mock.c`), so a worker
    /// that falls seconds behind sizes drawn uniformly would find intents deleted before it read them.
    private static func poison(_ index: Int) -> [UInt8] {
        let size = (index / 100) % 10 == 0 ? poisonMaximumBytes
            : Int(exp(Double.random(in: log(1024.0)...log(Double(poisonMaximumBytes)))))
        switch index % 3 {
        case 0:
            return (0..<size).map { _ in UInt8.random(in: 0...255) }
        case 1:
            return Array(#"{"schema_version":1,"id":"faults-\#(index)","tokens":["\#(token(index))"],"payload":{"aps":{"alert":""#.utf8)
                + [UInt8](repeating: UInt8(ascii: "x"), count: size)
        default:
            // An alert of at least 8 KiB: over APNs' 4 KB payload limit, whatever size was drawn.
            let head = Array(intent(index).dropLast(4))  // before the alert's closing `"}}}`
            return head + [UInt8](repeating: UInt8(ascii: "y"), count: max(size, 8 * 1024)) + Array("\"}}}".utf8)
        }
    }


    private func waitForAcknowledgements(_ total: Int) throws {
        try Deadline.wait(.seconds(120), for: "Kafka to acknowledge \(total) intents") {
            let (published, failures, first) = state.withLock { ($0.published.count, $0.failures, $0.firstFailure) }
            if let first { throw LocalStackError("\(failures) intent(s) not produced, the first: \(first)") }
            return published >= total
        }
    }
}
