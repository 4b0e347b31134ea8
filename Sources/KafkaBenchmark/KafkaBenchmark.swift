import Kafka

/// Measures the Kafka wrapper against plain librdkafka C loops doing the same work, in one run on
/// one mock cluster: producing (idempotent, lz4, linger 5 ms; every delivery report awaited) and
/// consuming (a new group from the start; batches, offsets stored per batch). Rounds alternate which
/// side goes first. Blocking: run it on a thread of its own (the CLI's main thread).
public struct KafkaBenchmark: Sendable {
    public var messages = 500_000
    public var messageSize = 256
    public var partitions = 6
    public var brokers = 3
    public var rounds = 5
    /// Messages per `send` call, and at most per `poll` (and per offset store in the C loop).
    public var batchSize = 1000

    public init() {}

    /// Runs every round; `progress` receives a line per phase (for standard error).
    public func run(progress: (String) -> Void) throws -> [KafkaBenchmarkResult] {
        let cluster = try KafkaMockCluster(brokers: brokers)
        for topic in ["bench.produce", "bench.consume"] {
            try cluster.createTopic(topic, partitions: partitions, replicationFactor: min(3, brokers))
        }
        let common = ["bootstrap.servers": cluster.bootstrapServers]
        let producing = common.merging([
            "enable.idempotence": "true", "compression.codec": "lz4", "linger.ms": "5",
        ]) { $1 }
        let consuming = common.merging([
            "auto.offset.reset": "earliest", "partition.assignment.strategy": "cooperative-sticky", "enable.auto.commit": "true",
        ]) { $1 }
        let payload = (0..<messageSize).map { UInt8(ascii: "a") + UInt8($0 % 26) }

        progress("filling bench.consume with \(messages) messages of \(messageSize) bytes")
        _ = try CProducerLoop.run(topic: "bench.consume", count: messages, payload: payload, properties: producing)

        var produce = KafkaBenchmarkResult(workload: "produce")
        var consume = KafkaBenchmarkResult(workload: "consume")
        for round in 1...rounds {
            let cFirst = round % 2 == 1
            for cSide in [cFirst, !cFirst] {
                let seconds = cSide
                    ? try CProducerLoop.run(topic: "bench.produce", count: messages, payload: payload, properties: producing)
                    : try WrapperProducerLoop.run(topic: "bench.produce", count: messages, payload: payload,
                                                  batchSize: batchSize, properties: producing)
                record(Double(messages) / seconds, in: &produce, cSide: cSide, round: round, progress: progress)
            }
            for cSide in [cFirst, !cFirst] {
                let group = "bench-\(cSide ? "c" : "wrapper")-\(round)"
                let (seconds, counted) = cSide
                    ? try CConsumerLoop.run(topic: "bench.consume", partitions: partitions, count: messages, group: group,
                                            batchSize: batchSize, properties: consuming)
                    : try WrapperConsumerLoop.run(topic: "bench.consume", count: messages, group: group,
                                                  batchSize: batchSize, properties: consuming)
                record(Double(counted) / seconds, in: &consume, cSide: cSide, round: round, progress: progress)
            }
        }
        return [produce, consume]
    }

    private func record(_ rate: Double, in result: inout KafkaBenchmarkResult, cSide: Bool, round: Int,
                        progress: (String) -> Void) {
        if cSide { result.cLoop.append(rate) } else { result.wrapper.append(rate) }
        progress("round \(round)/\(rounds): \(result.workload) \(cSide ? "C loop " : "wrapper"): \(Int(rate)) msg/s")
    }
}
