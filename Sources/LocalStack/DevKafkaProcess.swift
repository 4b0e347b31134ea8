import Foundation

/// `pushline dev-kafka` (librdkafka's mock cluster) as a process of its own, as the README's local
/// stack runs it: `brokers` brokers and the topics asked for. Stopped (SIGTERM) when released.
public final class DevKafkaProcess: Sendable {
    /// `bootstrap.servers` for clients of the cluster.
    public let bootstrapServers: String
    public let brokers: Int
    private let process: ServerProcess

    /// Starts `pushline` (e.g. `RepositoryPaths.builtExecutable("pushline")`) as `dev-kafka` with
    /// `topics` (`name:partitions`) and waits up to 10 seconds until it prints its bootstrap servers.
    public init(pushline executable: String, brokers: Int = 3, topics: [(name: String, partitions: Int)]) throws {
        let process = try ServerProcess(executable, ["dev-kafka", "--brokers", String(brokers)]
            + topics.flatMap { ["--topic", "\($0.name):\($0.partitions)"] })
        self.process = process
        self.brokers = brokers
        let prefix = "bootstrap.servers="
        var servers: String?
        try Deadline.wait(.seconds(10), for: "pushline dev-kafka to start (its log: \(process.logFile))") {
            guard process.isRunning else { throw LocalStackError("pushline dev-kafka exited at start: \(process.log)") }
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

    /// Stops it (SIGTERM) and waits.
    public func stop() {
        process.stop()
    }
}
