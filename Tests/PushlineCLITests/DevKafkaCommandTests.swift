import Foundation
import PushlineTestKit
import Testing

/// `pushline-dev dev-kafka` started as a subprocess, with Debian's `kcat` as an independent client.
@Suite("pushline-dev dev-kafka", .timeLimit(.minutes(2)))
struct DevKafkaCommandTests {
    @Test("--help explains the command and exits 0")
    func help() throws {
        let result = try pushlineDev("dev-kafka", "--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: pushline-dev dev-kafka"))
        #expect(result.standardOutput.contains("pushline.intents"))
    }

    @Test("kcat produces to and consumes from a topic given with --topic; SIGTERM stops the cluster with status 0")
    func kcatRoundTrip() async throws {
        try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline-dev"), ["dev-kafka", "--topic", "demo:3"])
            let servers = try bootstrapServers(of: server)
            let produced = try kcat(["-b", servers, "-t", "demo", "-P"], input: "one\ntwo\nthree\n")
            #expect(produced.status == 0, "kcat -P: \(produced.standardError)")
            let consumed = try kcat(["-b", servers, "-t", "demo", "-C", "-e", "-q", "-f", "%s\n"])
            #expect(consumed.status == 0, "kcat -C: \(consumed.standardError)")
            #expect(Set(consumed.standardOutput.split(separator: "\n")) == ["one", "two", "three"])
            #expect(server.stop() == 0, "\(server.log)")  // SIGTERM
        }
    }

    @Test("without --topic the pipeline's topics exist, as kcat's metadata shows; SIGINT stops it with status 0")
    func defaultTopics() async throws {
        try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline-dev"), ["dev-kafka", "--brokers", "1"])
            let servers = try bootstrapServers(of: server)
            let metadata = try kcat(["-b", servers, "-L", "-J"])
            #expect(metadata.status == 0, "kcat -L: \(metadata.standardError)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(metadata.standardOutput.utf8)) as? [String: Any])
            let topics = try #require(json["topics"] as? [[String: Any]])
            var partitions: [String: Int] = [:]
            for topic in topics {
                partitions[try #require(topic["topic"] as? String)] = (topic["partitions"] as? [Any])?.count
            }
            #expect(partitions["pushline.intents"] == 8)
            for name in ["pushline.outcomes", "pushline.token-events", "pushline.dlq", "pushline.tokens"] {
                #expect((partitions[name] ?? 0) >= 1, "\(name) in \(partitions)")
            }
            server.send(signal: SIGINT)
            #expect(server.waitForExit() == 0, "\(server.log)")
        }
    }

    @Test("a --topic with a bad partition count is a usage error")
    func badTopic() throws {
        let result = try pushlineDev("dev-kafka", "--topic", "demo:0")
        #expect(result.status == 2)
        #expect(result.standardError.contains("PARTITIONS must be a whole number from 1 to 1000"))
    }

    /// The servers from the first line of output, which must be `bootstrap.servers=<list>`. The log
    /// holds standard output and error together; nothing is written to either before that line.
    private func bootstrapServers(of server: ServerProcess) throws -> String {
        var line = ""
        try Deadline.wait(for: "pushline-dev dev-kafka to print its first line") {
            guard let first = server.log.split(separator: "\n", omittingEmptySubsequences: false).first,
                  server.log.contains("\n") else { return !server.isRunning }
            line = String(first)
            return true
        }
        let prefix = "bootstrap.servers="
        guard line.hasPrefix(prefix), line.count > prefix.count else {
            throw TestKitError("the first line was \"\(line)\", not \(prefix)<list>; output: \(server.log)")
        }
        return String(line.dropFirst(prefix.count))
    }

    /// Runs kcat, bounded by coreutils' `timeout` so a client that cannot reach the cluster fails the test.
    private func kcat(_ arguments: [String], input: String? = nil) throws -> CommandResult {
        let kcat = try ExternalCommand.locate("kcat", package: "kcat")
        let timeout = try ExternalCommand.locate("timeout", package: "coreutils")
        return try ExternalCommand.run(timeout, ["30", kcat] + arguments, standardInput: input.map { Data($0.utf8) })
    }
}
