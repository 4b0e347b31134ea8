import CLI
import Foundation
import Kafka
import OutputTopics
import PushlineConfiguration
import Runtime

/// What `pushline outcomes report|export` and `pushline dlq replay` share: where Kafka is (the
/// worker settings of `--config`, or `--brokers`), which output topic, and which of its records
/// (`--since`/`--until`, `--start-offset`/`--end-offset`, `--partition`).
struct OutputTopicArguments {
    static let valueOptions: Set<String> = ["--config", "--brokers", "--since", "--until", "--start-offset", "--end-offset"]
    static let repeatableOptions: Set<String> = ["--partition"]

    /// The shared options' help lines.
    static let help = """
          --config FILE       the worker settings (Kafka, and the topics of its pipelines), e.g. Config/pushline.yaml;
                              PUSHLINE_… variables apply
          --brokers LIST      instead of --config: Kafka's bootstrap servers, host:port[,host:port…]
          --since TIME        records whose own time is at or after TIME: RFC 3339 (2026-12-01T09:00:00Z) or a
                              time before now (30m, 6h, 7d)
          --until TIME        records whose own time is before TIME (same forms)
          --start-offset N    start each partition at offset N (default: its first retained record)
          --end-offset N      stop each partition before offset N (default: its end when reading starts)
          --partition N       only partition N (may be repeated)
        """

    let reader: KafkaReaderConfiguration
    let producer: KafkaProducerConfiguration
    /// The pipelines of `--config`; empty with `--brokers`.
    let pipelines: [PipelineConfiguration]
    let range: RecordRange
    private let source: String

    /// Nil when `--config` is invalid, after printing every problem to standard error.
    static func parse(_ arguments: ParsedArguments, command: String) throws -> OutputTopicArguments? {
        let range = try recordRange(arguments)
        switch (arguments.optional("--config"), arguments.optional("--brokers")) {
        case (let file?, nil):
            let configuration: PushlineConfiguration
            do {
                configuration = try PushlineConfiguration.load(file: file, environment: ProcessInfo.processInfo.environment)
            } catch {
                for problem in error.errors { printError("pushline \(command): \(problem)") }
                return nil
            }
            return OutputTopicArguments(reader: configuration.kafka.readerConfiguration, producer: configuration.kafka.producerConfiguration,
                                        pipelines: configuration.pipelines, range: range, source: file)
        case (nil, let brokers?):
            guard !brokers.isEmpty, !brokers.split(separator: ",").contains(where: { !$0.contains(":") }) else {
                throw UsageError(message: "--brokers must be host:port[,host:port…], got \"\(brokers)\"")
            }
            return OutputTopicArguments(reader: KafkaReaderConfiguration(bootstrapServers: brokers),
                                        producer: KafkaProducerConfiguration(bootstrapServers: brokers), pipelines: [],
                                        range: range, source: "--brokers")
        default:
            throw UsageError(message: "give --config FILE or --brokers LIST (one of them)")
        }
    }

    /// The topic `option` names, else the one the pipelines of `--config` write (`output`), else `fallback`.
    func topic(_ arguments: ParsedArguments, option: String, output: KeyPath<PipelineConfiguration.Outputs, String>,
               fallback: String) throws(UsageError) -> String {
        if let topic = arguments.optional(option) { return topic }
        let topics = Set(pipelines.map { $0.outputs[keyPath: output] }).sorted()
        guard topics.count <= 1 else {
            throw UsageError(message: "the pipelines of \(source) write to \(topics.joined(separator: ", ")): choose one with \(option)")
        }
        return topics.first ?? fallback
    }

    private static func recordRange(_ arguments: ParsedArguments) throws(UsageError) -> RecordRange {
        var range = RecordRange()
        range.since = try arguments.optional("--since").map { text throws(UsageError) in try time(text, option: "--since") }
        range.until = try arguments.optional("--until").map { text throws(UsageError) in try time(text, option: "--until") }
        range.startOffset = try arguments.optionalInteger("--start-offset")
        range.endOffset = try arguments.optionalInteger("--end-offset")
        let partitions = arguments.all("--partition")
        if !partitions.isEmpty {
            range.partitions = Set(try partitions.map { text throws(UsageError) in
                guard let partition = Int32(text), partition >= 0 else {
                    throw UsageError(message: "--partition must be a partition number, got \"\(text)\"")
                }
                return partition
            })
        }
        if let since = range.since, let until = range.until, since >= until {
            throw UsageError(message: "--since must be before --until")
        }
        if let start = range.startOffset, let end = range.endOffset, start >= end {
            throw UsageError(message: "--start-offset must be below --end-offset")
        }
        return range
    }

    /// Unix milliseconds of an RFC 3339 time, or of now minus a duration (`30m`, `6h`, `7d`).
    private static func time(_ text: String, option: String) throws(UsageError) -> Int64 {
        if let duration = DurationText.parse(text) {
            return WallClock.millisecondsSinceEpoch() - Int64(duration.wholeMilliseconds)
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        throw UsageError(message: "\(option) must be an RFC 3339 time (2026-12-01T09:00:00Z) or a duration before now (30m, 6h, 7d), "
            + "got \"\(text)\"")
    }
}
