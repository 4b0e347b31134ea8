import APNsClient
import APNsCore
import CLI
import Foundation
import LocalStack
import Runtime
import Synchronization

/// `pushline-dev bench sender`: pushes N notifications through the sender as fast as it can and prints
/// the rate and peak memory. `scripts/bench-sender.sh` runs it beside h2load and a capacity model.
enum BenchSenderCommand: Command {
    static let name = "bench sender"
    static let summary = "measure the sender's requests per second against a server"
    static let help = """
        Usage: pushline-dev bench sender --host HOST --port PORT [--ca-file FILE | --insecure]
                                     [--requests N] [--connections C] [--payload FILE] [--topic TOPIC]

        Sends N notifications (default 100000) to one device token through a pool of C connections
        (default 4) with the dev provider key (Config/dev/ of the shared files: PREFIX/share/pushline
        beside an installed pushline-dev, else its checkout), and prints:

          sender: <accepted> accepted, <other> not, in <seconds> s = <rate> req/s; CPU <µs> µs per request; peak RSS <MiB> MiB

        The CPU time is the whole process's (every thread) while the requests were sent: unlike the
        rate, it barely moves when other programs compete for the cores.

        Progress goes to standard error. scripts/bench-sender.sh compares the rate with h2load
        against nghttpd, and with the capacity model against apns-sim with injected latency.
        """
    static let arguments = ArgumentSpec(
        valueOptions: ["--host", "--port", "--ca-file", "--requests", "--connections", "--payload", "--topic"],
        flagOptions: ["--insecure"]
    )

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let host = try arguments.required("--host")
        guard let port = UInt16(exactly: try arguments.optionalInteger("--port") ?? 443) else {
            throw UsageError(message: "--port must be 1…65535")
        }
        let requests = Int(try arguments.optionalInteger("--requests") ?? 100_000)
        let connections = Int(try arguments.optionalInteger("--connections") ?? 4)
        let topic = arguments.optional("--topic") ?? "com.example.app"
        let payload = try arguments.optional("--payload").map { try readFile($0, purpose: "payload") }
            ?? Array(#"{"aps":{"alert":"benchmark"}}"#.utf8)
        var configuration = SenderConfiguration()
        configuration.minimumConnections = connections
        configuration.maximumConnections = connections
        configuration.connectionSpacingMilliseconds = 0
        configuration.maximumPending = 50_000
        configuration.caFile = arguments.optional("--ca-file")
        configuration.insecureSkipVerification = arguments.flags.contains("--insecure")
        let key = String(decoding: try readFile(DevCredentials.privateKeyFile, purpose: "dev key"), as: UTF8.self)
        let credentials = try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID, p8: key)
        let sender = try APNsSender(configuration: configuration)
        defer { sender.shutdown() }
        try sender.addPool(named: "bench", credentials: .token(ProviderTokenSource(credentials: credentials)),
                           environment: APNsEnvironment(host: host, port: port))
        let token = try DeviceToken(String(repeating: "ab", count: 32))
        let batchSize = 1000
        // Built before the clock starts, as a worker has its batch ready when it calls `send`.
        let batches = stride(from: 0, to: requests, by: batchSize).map { first in
            (first..<min(first + batchSize, requests)).map { _ in
                APNsNotification(deviceToken: token, pushType: .alert, topic: topic, payload: payload)
            }
        }

        // Warm up: open the connections and get past the one-stream limit before the clock starts.
        _ = wait { try await sender.send([APNsNotification(deviceToken: token, pushType: .alert, topic: topic, payload: payload)], pool: "bench") }
        let start = MonotonicClock.nanoseconds()
        let cpuAtStart = ProcessCPUTime.ownSeconds()
        let counts = wait { () async throws -> (Int, Int) in
            try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for notifications in batches {
                    group.addTask {
                        let results = try await sender.send(notifications, pool: "bench")
                        // Counted in place: filtering would copy every accepted result, CPU the
                        // measurement would charge to the sender.
                        let accepted = results.reduce(0) { $0 + ($1.outcome == .accepted ? 1 : 0) }
                        return (accepted, results.count - accepted)
                    }
                }
                var total = (0, 0)
                var done = 0
                for try await (accepted, other) in group {
                    total.0 += accepted
                    total.1 += other
                    done += 1
                    if done % 20 == 0 { printError("bench sender: \(done * batchSize)/\(requests)") }
                }
                return total
            }
        }
        let seconds = Double(MonotonicClock.nanoseconds() - start) / 1_000_000_000
        let cpuSeconds = ProcessCPUTime.ownSeconds() - cpuAtStart
        let (accepted, other) = try counts.get()
        print(String(format: "sender: %d accepted, %d not, in %.2f s = %.0f req/s; CPU %.2f µs per request; peak RSS %.1f MiB",
                     accepted, other, seconds, Double(accepted) / seconds, cpuSeconds * 1_000_000 / Double(max(requests, 1)),
                     Double(ProcessMemory.peakResidentBytes(of: getpid()) ?? 0) / 1_048_576))
        return other == 0 ? 0 : 1
    }
}
