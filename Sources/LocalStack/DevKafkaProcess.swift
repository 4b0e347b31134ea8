import Foundation

/// `pushline-dev dev-kafka` (librdkafka's mock cluster) as a process of its own, as the README's local
/// stack runs it: `brokers` brokers and the topics asked for. Stopped (SIGTERM) when released.
public final class DevKafkaProcess: Sendable {
    /// `bootstrap.servers` for clients of the cluster.
    public let bootstrapServers: String
    public let brokers: Int
    private let process: ServerProcess

    /// Starts `pushline-dev` (e.g. `RepositoryPaths.builtExecutable("pushline-dev")`) as `dev-kafka` with
    /// `topics` (`name:partitions`) and waits up to 10 seconds until it prints its bootstrap servers.
    public init(pushlineDev executable: String, brokers: Int = 3, topics: [(name: String, partitions: Int)]) throws {
        let process = try ServerProcess(executable, ["dev-kafka", "--brokers", String(brokers)]
            + topics.flatMap { ["--topic", "\($0.name):\($0.partitions)"] }, standardInput: true)
        self.process = process
        self.brokers = brokers
        let prefix = "bootstrap.servers="
        var servers: String?
        try Deadline.wait(.seconds(10), for: "pushline-dev dev-kafka to start (its log: \(process.logFile))") {
            guard process.isRunning else { throw LocalStackError("pushline-dev dev-kafka exited at start: \(process.log)") }
            servers = process.log.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            return servers != nil && process.log.contains("stop with SIGINT or SIGTERM")
        }
        bootstrapServers = servers ?? ""
    }

    deinit {
        stop()
    }

    public var processID: pid_t { process.processID }

    /// What it printed so far.
    public var log: String { process.log }

    /// Takes broker `broker` (from 1) down, or brings it back up, through the command lines
    /// `pushline-dev dev-kafka` reads on standard input (docs/kafka.md), and waits until it says so.
    public func setBroker(_ broker: Int, up: Bool) throws {
        let done = "dev-kafka: brokers \(broker) \(up ? "up" : "down")"
        let before = process.log.components(separatedBy: done).count
        try process.writeLine("\(up ? "up" : "down") \(broker)")
        try Deadline.wait(.seconds(5), for: "pushline-dev dev-kafka to take broker \(broker) \(up ? "up" : "down") (its log: \(process.logFile))") {
            process.log.components(separatedBy: done).count > before
        }
    }

    /// Stops it (SIGTERM) and waits.
    public func stop() {
        process.stop()
    }
}
