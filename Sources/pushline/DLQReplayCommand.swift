import CLI
import Kafka
import OutputTopics

/// `pushline dlq replay`: dead letters published again to their source once their cause is fixed.
enum DLQReplayCommand: Command {
    static let name = "dlq replay"
    static let summary = "publish dead letters back to their source topic (filter by reason, time or offset)"
    static let help = """
        Usage: pushline dlq replay (--config FILE | --brokers LIST) [--reason REASON]… [--since TIME] [--until TIME]
                                   [--start-offset N] [--end-offset N] [--partition N]… [--dlq-topic TOPIC] [--dry-run]

        Publishes the original message of each dead letter of the range (Config/schemas/dlq-v1.schema.json;
        offsets and partitions are the dead-letter topic's, times its recorded_at) back to its source
        topic and partition, once the cause is fixed. The bytes are the original's, so an intent keeps
        its id and the pipeline's idempotency claims send nothing twice: replaying again, or replaying a
        dead letter whose intent was delivered meanwhile, only adds `suppressed` outcomes.

        A dead letter that carries its whole original (up to 4096 bytes) is replayed from that copy,
        without a key. A longer one carries only its first bytes: the original is fetched from its
        source topic/partition/offset (with its key) and published only when its SHA-256 is the dead
        letter's. When the source no longer holds it (retention, compaction), that dead letter is not
        replayed: a line `error <dead letter> SourceGone …` says so, and the others are replayed.

        Prints one line per dead letter: `replayed <dead letter> <reason> <intent id> -> <topic>[p]@offset`,
        `would replay …` with --dry-run (nothing is fetched or published), or `error <dead letter> <code> …`.
        Reading stops at each partition's end as it was when reading started, and joins no consumer group.

        Exit status: 0 when every selected dead letter was replayed (or listed), 1 when one or more could
        not be or FILE is invalid or Kafka failed, 2 on usage errors.

        Options:
        \(OutputTopicArguments.help)
          --reason REASON     only dead letters with this reason (may be repeated), e.g. UnknownTemplate
          --dlq-topic TOPIC   the dead-letter topic (default: the pipelines' outputs.dlq, or pushline.dlq)
          --dry-run           list what would be replayed; publish nothing
          -h, --help          show this help
        """
    static let arguments = ArgumentSpec(valueOptions: OutputTopicArguments.valueOptions.union(["--dlq-topic"]), flagOptions: ["--dry-run"],
                                        repeatableOptions: OutputTopicArguments.repeatableOptions.union(["--reason"]))

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let options = try OutputTopicArguments.parse(arguments, command: name) else { return 1 }
        let topic = try options.topic(arguments, option: "--dlq-topic", output: \.dlq, fallback: "pushline.dlq")
        let reasons = Set(arguments.all("--reason"))
        let reader = try KafkaTopicReader(configuration: options.reader)
        let scan = try TopicScan(topic: topic, range: options.range, reader: reader)
        var progress = ReadProgress(command: name, topic: topic)
        var deadLetters: [DeadLetterRecord] = []
        var failures = 0
        try scan.read(with: reader, progress: { progress.report(done: $0, total: $1) }) { message in
            do {
                let deadLetter = try DeadLetterRecord(message)
                if options.range.contains(time: deadLetter.recordedAt), reasons.isEmpty || reasons.contains(deadLetter.reason) {
                    deadLetters.append(deadLetter)
                }
            } catch let error as OutputRecordError {
                print("error \(error.topicPartition)@\(error.offset) \(error.code) \(error.detail)")
                failures += 1
            }
        }
        if arguments.flags.contains("--dry-run") {
            for deadLetter in deadLetters {
                let copy = deadLetter.carriesWholeOriginal ? "whole copy" : "fetch from source"
                print("would replay \(describe(deadLetter)) -> \(deadLetter.source.kafkaPartition) "
                    + "(\(deadLetter.originalSize) bytes, \(copy))")
            }
            printError("pushline \(name): \(deadLetters.count) dead letter(s) would be replayed (dry run: nothing published)")
            return failures == 0 ? 0 : 1
        }
        let replay = DeadLetterReplay(reader: reader)
        var ready: [(deadLetter: DeadLetterRecord, message: KafkaProducerMessage)] = []
        for deadLetter in deadLetters {
            do {
                ready.append((deadLetter, try replay.original(of: deadLetter)))
            } catch {
                print("error \(error.deadLetter) \(error.code) \(error.detail)")
                failures += 1
            }
        }
        let results = try KafkaPublication.publish(ready.map(\.message), configuration: options.producer)
        for (entry, result) in zip(ready, results) {
            switch result {
            case .success(let offset):
                print("replayed \(describe(entry.deadLetter)) -> \(entry.deadLetter.source.kafkaPartition)@\(offset)")
            case .failure(let error):
                print("error \(entry.deadLetter.position) \(ReplayError.Code.publishFailed) \(error)")
                failures += 1
            }
        }
        let replayed = results.count { if case .success = $0 { true } else { false } }
        printError("pushline \(name): \(replayed) replayed, \(failures) not")
        return failures == 0 ? 0 : 1
    }

    /// `<dead letter position> <reason> <intent id or ->`.
    private static func describe(_ deadLetter: DeadLetterRecord) -> String {
        "\(deadLetter.position) \(deadLetter.reason) \(deadLetter.intentID ?? "-")"
    }
}
