import CLI
import Foundation
import Kafka
import Runtime

/// `pushline-dev dev-kafka`: librdkafka's mock Kafka cluster as a local server, for development, demos
/// and tests that talk to Kafka from another process (kcat, a second pushline).
enum DevKafkaCommand: Command {
    static let name = "dev-kafka"
    static let summary = "serve librdkafka's in-memory mock Kafka cluster until SIGINT/SIGTERM"
    static let help = """
        Usage: pushline-dev dev-kafka [--brokers N] [--topic NAME[:PARTITIONS] ...]

        Starts librdkafka's mock Kafka cluster: real brokers speaking the Kafka protocol on local
        ports, with consumer groups and idempotent producers, keeping everything in memory. Serves
        until SIGINT or SIGTERM, then exits 0.

        The first line on standard output is "bootstrap.servers=<host:port,...>"; the rest of what it
        says goes to standard error. For example:
          pushline-dev dev-kafka --topic demo:3 > servers.txt &
          kcat -b "$(cut -d= -f2 servers.txt)" -t demo -P <<< 'hello'
          kcat -b "$(cut -d= -f2 servers.txt)" -t demo -C -e

        Faults, for tests and fault drills: each line on standard input is a command —
          down [BROKER]   take broker BROKER (1...N) down, or every broker without one
          up [BROKER]     bring it (or every broker) back
        each answered on standard error ("dev-kafka: brokers 1,2,3 down"). For example:
          mkfifo control; pushline-dev dev-kafka < control > servers.txt & exec 3> control
          echo down >&3; sleep 30; echo up >&3

        Without --topic it creates the pipeline's topics:
        \(defaultTopics.map { "  \($0.name) (\($0.partitions) partitions)" }.joined(separator: "\n"))

        Options:
          --brokers N                 how many brokers (default 3); topics are replicated on up to 3
          --topic NAME[:PARTITIONS]   create this topic (default 1 partition); repeat for more topics
          -h, --help                  show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--brokers"], repeatableOptions: ["--topic"])

    /// The topics of the pipeline (DESIGN.md §1), created when no --topic is given.
    static let defaultTopics: [(name: String, partitions: Int)] = [
        ("pushline.intents", 8), ("pushline.outcomes", 8), ("pushline.token-events", 4), ("pushline.dlq", 4),
        ("pushline.tokens", 4),
    ]

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let brokers = try arguments.optionalInteger("--brokers") ?? 3
        guard (1...16).contains(brokers) else { throw UsageError(message: "--brokers must be from 1 to 16, got \(brokers)") }
        let requested = try arguments.all("--topic").map(topic)
        let topics = requested.isEmpty ? defaultTopics : requested

        // Before the cluster starts its threads, so they inherit the mask.
        let signals = TerminationSignals()

        let cluster = try KafkaMockCluster(brokers: Int(brokers))
        for topic in topics {
            try cluster.createTopic(topic.name, partitions: topic.partitions, replicationFactor: min(3, Int(brokers)))
        }
        print("bootstrap.servers=\(cluster.bootstrapServers)")
        fflush(nil)
        let created = topics.map { "\($0.name):\($0.partitions)" }.joined(separator: " ")
        FileHandle.standardError.write(Data("dev-kafka: \(brokers) brokers, topics \(created); stop with SIGINT or SIGTERM\n".utf8))

        ServiceThread().start(name: "dev-kafka-faults") { serveFaultCommands(cluster) }
        let received = signals.wait()
        FileHandle.standardError.write(Data("dev-kafka: stopping on signal \(received)\n".utf8))
        withExtendedLifetime(cluster) {}
        return 0
    }

    /// Reads `down [BROKER]` and `up [BROKER]` lines from standard input until it ends.
    private static func serveFaultCommands(_ cluster: KafkaMockCluster) {
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            let brokers: [Int32]
            if words.count == 1 {
                brokers = (1...Int32(cluster.brokerCount)).map { $0 }
            } else if words.count == 2, let broker = Int32(words[1]), (1...Int32(cluster.brokerCount)).contains(broker) {
                brokers = [broker]
            } else {
                note("unknown command \"\(line)\" (down [BROKER], up [BROKER]; brokers 1...\(cluster.brokerCount))")
                continue
            }
            do {
                switch command {
                case "down": for broker in brokers { try cluster.setBrokerDown(broker) }
                case "up": for broker in brokers { try cluster.setBrokerUp(broker) }
                default:
                    note("unknown command \"\(line)\" (down [BROKER], up [BROKER])")
                    continue
                }
                note("brokers \(brokers.map(String.init).joined(separator: ",")) \(command)")
            } catch {
                note("\(line): \(error)")
            }
        }
    }

    private static func note(_ text: String) {
        FileHandle.standardError.write(Data("dev-kafka: \(text)\n".utf8))
    }

    /// `NAME[:PARTITIONS]`, with Kafka's rules for topic names.
    private static func topic(_ text: String) throws(UsageError) -> (name: String, partitions: Int) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 249, name != ".", name != "..", name.allSatisfy(allowed.contains) else {
            throw UsageError(message: "--topic \"\(text)\": a topic name is 1 to 249 of a-z A-Z 0-9 . _ -")
        }
        guard parts.count == 2 else { return (name, 1) }
        guard let partitions = Int(parts[1]), (1...1000).contains(partitions) else {
            throw UsageError(message: "--topic \"\(text)\": PARTITIONS must be a whole number from 1 to 1000")
        }
        return (name, partitions)
    }
}
