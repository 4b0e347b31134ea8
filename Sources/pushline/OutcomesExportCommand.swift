import CLI
import Foundation
import Kafka
import OutputTopics

/// `pushline outcomes export`: outcome events as JSON lines, for a warehouse.
enum OutcomesExportCommand: Command {
    static let name = "outcomes export"
    static let summary = "write the outcome events of a time or offset range as JSON lines"
    static let help = """
        Usage: pushline outcomes export (--config FILE | --brokers LIST) [--since TIME] [--until TIME]
                                        [--start-offset N] [--end-offset N] [--partition N]… [--topic TOPIC]
                                        [--output FILE] [--all-copies]

        Writes the outcome events of the range (Config/schemas/outcome-v1.schema.json), one per line,
        byte for byte as they are on Kafka, to FILE or standard output: what docs/analytics.md loads
        into DuckDB or a warehouse. Each delivery once, as its first record (a delivery is its
        intent_id, token and source topic/partition/offset; copies a redelivery wrote again are left
        out unless --all-copies); records that are not outcome-v1 events are left out and counted.
        Reading stops at each partition's end as it was when reading started, and joins no consumer
        group. Progress and a summary go to standard error.

        Exit status: 0, 1 when FILE is invalid, the output cannot be written or Kafka failed, 2 on
        usage errors.

        Options:
        \(OutputTopicArguments.help)
          --topic TOPIC       the outcomes topic (default: the pipelines' outputs.outcomes, or pushline.outcomes)
          --output FILE       write to FILE (replaced) instead of standard output
          --all-copies        keep every copy of a delivery's outcome
          -h, --help          show this help
        """
    static let arguments = ArgumentSpec(valueOptions: OutputTopicArguments.valueOptions.union(["--topic", "--output"]),
                                        flagOptions: ["--all-copies"], repeatableOptions: OutputTopicArguments.repeatableOptions)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let options = try OutputTopicArguments.parse(arguments, command: name) else { return 1 }
        let topic = try options.topic(arguments, option: "--topic", output: \.outcomes, fallback: "pushline.outcomes")
        let output: FileHandle
        if let path = arguments.optional("--output") {
            guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
                throw UsageError(message: "cannot write --output \"\(path)\"")
            }
            output = file
        } else {
            output = FileHandle.standardOutput
        }
        let keepCopies = arguments.flags.contains("--all-copies")
        let reader = try KafkaTopicReader(configuration: options.reader)
        let scan = try TopicScan(topic: topic, range: options.range, reader: reader)
        var progress = ReadProgress(command: name, topic: topic)
        var seen: Set<DeliveryIdentity> = []
        var written = 0
        var copies = 0
        var unreadable = 0
        var buffer: [UInt8] = []
        try scan.read(with: reader, progress: { done, total in
            output.write(Data(buffer))
            buffer.removeAll(keepingCapacity: true)
            progress.report(done: done, total: total)
        }) { message in
            guard let outcome = try? OutcomeRecord(message) else {
                unreadable += 1
                return
            }
            guard options.range.contains(time: outcome.completedAt) else { return }
            guard seen.insert(outcome.delivery).inserted || keepCopies else {
                copies += 1
                return
            }
            buffer += outcome.bytes
            buffer.append(UInt8(ascii: "\n"))
            written += 1
        }
        printError("pushline \(name): \(written) outcome(s) written, \(copies) copies of a delivery left out, "
            + "\(unreadable) unreadable record(s) left out")
        return 0
    }
}
