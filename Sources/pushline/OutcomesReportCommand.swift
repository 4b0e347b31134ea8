import CLI
import Kafka
import OutputTopics

/// `pushline outcomes report`: the delivery funnel of a range of the outcomes topic.
enum OutcomesReportCommand: Command {
    static let name = "outcomes report"
    static let summary = "print the delivery funnel of a time or offset range of the outcomes topic"
    static let help = """
        Usage: pushline outcomes report (--config FILE | --brokers LIST) [--since TIME] [--until TIME]
                                        [--start-offset N] [--end-offset N] [--partition N]…
                                        [--topic TOPIC] [--dlq-topic TOPIC] [--format table|csv|json] [--list-tokens]

        Reads the outcome events (Config/schemas/outcome-v1.schema.json) of the range and prints the
        delivery funnel by app, template, push type and locale: deliveries by status and reason
        (accepted, rejected, suppressed, failed, invalid, expired, unknown) with latency percentiles
        (the intent's created_at to the outcome's completed_at, ms); deliveries by status; the tokens
        APNs called Unregistered or ExpiredToken (counted; listed with --list-tokens); and the top
        reasons of the dead letters of the same range.

        Each delivery counts once: a delivery is its (intent_id, token, source topic/partition/offset),
        and further outcome records of it (copies a redelivery wrote again, docs/worker.md) are counted
        as copies. Reading stops at each partition's end as it was when reading started, and joins no
        consumer group (it commits nothing). Progress goes to standard error.

        Exit status: 0, 1 when FILE is invalid or Kafka failed, 2 on usage errors.

        Options:
        \(OutputTopicArguments.help)
          --topic TOPIC       the outcomes topic (default: the pipelines' outputs.outcomes, or pushline.outcomes)
          --dlq-topic TOPIC   the dead-letter topic (default: the pipelines' outputs.dlq, or pushline.dlq)
          --format FORMAT     table (default), csv (the funnel's lines; with --list-tokens the tokens) or json
          --list-tokens       list the unregistered and expired tokens, not only their count
          -h, --help          show this help
        """
    static let arguments = ArgumentSpec(valueOptions: OutputTopicArguments.valueOptions.union(["--topic", "--dlq-topic", "--format"]),
                                        flagOptions: ["--list-tokens"], repeatableOptions: OutputTopicArguments.repeatableOptions)

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let formatName = arguments.optional("--format") ?? OutcomeReportWriter.Format.table.rawValue
        guard let format = OutcomeReportWriter.Format(rawValue: formatName) else {
            throw UsageError(message: "--format must be table, csv or json, got \"\(formatName)\"")
        }
        guard let options = try OutputTopicArguments.parse(arguments, command: name) else { return 1 }
        let outcomesTopic = try options.topic(arguments, option: "--topic", output: \.outcomes, fallback: "pushline.outcomes")
        let deadLetterTopic = try options.topic(arguments, option: "--dlq-topic", output: \.dlq, fallback: "pushline.dlq")
        let reader = try KafkaTopicReader(configuration: options.reader)
        var report = OutcomeReport(range: options.range)
        let outcomes = try TopicScan(topic: outcomesTopic, range: options.range, reader: reader)
        let deadLetters = try TopicScan(topic: deadLetterTopic, range: options.range, reader: reader)
        var outcomeProgress = ReadProgress(command: name, topic: outcomesTopic)
        try outcomes.read(with: reader, progress: { outcomeProgress.report(done: $0, total: $1) }) { report.addOutcome($0) }
        var deadLetterProgress = ReadProgress(command: name, topic: deadLetterTopic)
        try deadLetters.read(with: reader, progress: { deadLetterProgress.report(done: $0, total: $1) }) { report.addDeadLetter($0) }
        let writer = OutcomeReportWriter(format: format, listTokens: arguments.flags.contains("--list-tokens"),
                                         outcomesTopic: outcomesTopic, deadLetterTopic: deadLetterTopic)
        print(writer.text(report), terminator: "")
        return 0
    }
}
