import CLI
import Foundation
import KafkaBenchmark

/// `pushline-dev bench kafka`: the Kafka wrapper's throughput against plain librdkafka C loops.
enum BenchKafkaCommand: Command {
    static let name = "bench kafka"
    static let summary = "measure Kafka produce/consume throughput: wrapper vs a plain C loop"
    static let help = """
        Usage: pushline-dev bench kafka [--messages N] [--size BYTES] [--partitions N] [--brokers N] [--rounds N]

        Starts a mock Kafka cluster and, in one run, produces and consumes the same messages through
        Pushline's Kafka wrapper and through plain librdkafka C loops doing the same work. Prints
        messages per second of each (best round) and the wrapper/C ratio. Progress goes to standard
        error. Build with -c release for meaningful figures.

        Options:
          --messages N     messages per run (default \(KafkaBenchmark().messages))
          --size BYTES     value size (default \(KafkaBenchmark().messageSize))
          --partitions N   partitions of each topic (default \(KafkaBenchmark().partitions))
          --brokers N      mock brokers (default \(KafkaBenchmark().brokers))
          --rounds N       rounds, alternating which side goes first (default \(KafkaBenchmark().rounds))
          -h, --help       show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--messages", "--size", "--partitions", "--brokers", "--rounds"])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        var benchmark = KafkaBenchmark()
        benchmark.messages = try positive(arguments, "--messages") ?? benchmark.messages
        benchmark.messageSize = try positive(arguments, "--size") ?? benchmark.messageSize
        benchmark.partitions = try positive(arguments, "--partitions") ?? benchmark.partitions
        benchmark.brokers = try positive(arguments, "--brokers") ?? benchmark.brokers
        benchmark.rounds = try positive(arguments, "--rounds") ?? benchmark.rounds
        guard benchmark.messageSize <= 1_000_000 else { throw UsageError(message: "--size must be at most 1000000") }

        print("pushline-dev bench kafka: \(benchmark.messages) messages of \(benchmark.messageSize) bytes, "
              + "\(benchmark.partitions) partitions, \(benchmark.brokers) mock brokers, best of \(benchmark.rounds) rounds")
        let results = try benchmark.run { line in
            FileHandle.standardError.write(Data("bench kafka: \(line)\n".utf8))
        }
        for result in results {
            let c = Int(result.cLoop.max() ?? 0)
            let wrapper = Int(result.wrapper.max() ?? 0)
            print("\(result.workload): C loop \(c) msg/s, wrapper \(wrapper) msg/s, ratio \(String(format: "%.2f", result.ratio))")
        }
        return 0
    }

    private static func positive(_ arguments: ParsedArguments, _ name: String) throws(UsageError) -> Int? {
        guard let value = try arguments.optionalInteger(name) else { return nil }
        guard value > 0 else { throw UsageError(message: "\(name) must be positive, got \(value)") }
        return Int(value)
    }
}
