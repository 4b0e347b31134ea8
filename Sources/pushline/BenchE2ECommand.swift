import APNsClient
import CLI
import Foundation
import Kafka
import LocalStack

/// `pushline bench e2e`: deliveries per second and end-to-end latency of `pushline run` on local
/// components, beside h2load's raw rate against the same server.
enum BenchE2ECommand: Command {
    static let name = "bench e2e"
    static let summary = "deliveries per second and latency of `pushline run` on mock Kafka, redis-server and apns-sim"
    static let help = """
        Usage: pushline bench e2e [--intents N] [--tokens K] [--half-load-seconds S] [--batch-size B]
                                  [--partitions P] [--h2load-requests R] [--kafka-property KEY=VALUE]…
                                  [--server apns-sim|nghttpd] [--encrypt]

        Measures the whole pipeline on this machine. Starts, in this process, librdkafka's mock
        Kafka cluster (one broker); as processes of their own, a redis-server on a free port and the
        APNs server: the apns-sim built beside this executable (TLS on a free port, its own
        self-signed certificate, 1 event loop), or with --server nghttpd, nghttp2's own server
        (Debian package nghttp2-server; TLS, a self-signed certificate, 200 for 4,096 known device
        tokens, which the intents then cycle through); then:

          1. h2load (Debian package nghttp2-client) against that server: R requests over 4
             connections × 100 streams with a provider token of the dev key — the raw rate of the
             server, the reference the pipeline's rate is compared with.
          2. Pre-loads N intents on pushline.intents (P partitions): the example app's chat_message
             in English, each to K device tokens of its own (for nghttpd, K of its 4,096 in turn):
             N × K deliveries, each claimed and sent, as intent ids are unique.
          3. Starts `pushline run` (the real worker, as a process of its own) with a configuration
             of those components (Redis dedupe on, outcomes to pushline.outcomes) and reads the
             outcomes back: the sustained rate is the deliveries read back per second, from the
             first outcome to the last.
          4. Half load: produces intents at a steady rate of half the sustained deliveries per second
             for S seconds, each with `created_at` the moment it is produced, and reads their
             outcomes back: latency p50/p99 from `created_at` to the outcome's `completed_at`, and to
             the moment this process read the outcome from Kafka.
          5. Stops the worker with SIGTERM (it must exit 0).

        Prints the figures, the CPU time per delivery of each process over the sustained phase (from
        the worker's start to the last outcome read back: pushline run, the server, redis-server, and
        this process — the mock broker and the outcome reader), the peak resident memory of the
        worker and of the server, the ratio of the sustained rate to h2load's, and the load average;
        progress goes to standard error.
        The goal of issue #7: at least 50,000 deliveries/s, and p99 under 50 ms at half load.

        Options:
          --intents N             intents pre-loaded for the sustained rate (default 200000)
          --tokens K              device tokens per intent (default 1)
          --half-load-seconds S   how long the half load is offered (default 10)
          --batch-size B          the pipeline's batch.size (default: the configuration's, 500)
          --partitions P          partitions of pushline.intents (default 4)
          --h2load-requests R     requests of the h2load run (default 200000)
          --server NAME           apns-sim (default) or nghttpd: the server pushes go to
          --encrypt               every delivery sealed (docs/service-extension.md): intents use
                                  chat_message_sealed, and a device key is registered for every
                                  token before its intents are produced; compare with runs without
                                  it, alternating (docs/BENCHMARKS.md)
          --kafka-property K=V    a librdkafka property for the worker (kafka.properties);
                                  repeatable. Default: fetch.wait.max.ms=2 — librdkafka's mock
                                  broker holds a fetch that finds nothing new for the whole
                                  fetch.wait.max.ms (500 ms by default), even when messages
                                  arrive meanwhile; a real broker answers as soon as they do
                                  (docs/BENCHMARKS.md)
          -h, --help              show this help

        Exit 0 when every step finished; 1 when a component could not start, the worker stopped,
        or outcomes stopped arriving for 60 seconds.
        """
    static let arguments = ArgumentSpec(valueOptions: [
        "--intents", "--tokens", "--half-load-seconds", "--batch-size", "--partitions", "--h2load-requests", "--server",
    ], flagOptions: ["--encrypt"], repeatableOptions: ["--kafka-property"])

    static let deliveriesGoal = 50_000.0
    static let p99GoalMilliseconds = 50.0

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let intents = try arguments.positiveInteger("--intents", default: 200_000)
        let tokens = try arguments.positiveInteger("--tokens", default: 1)
        let halfLoadSeconds = try arguments.positiveInteger("--half-load-seconds", default: 10)
        let batchSize = arguments.optional("--batch-size") == nil ? nil : try arguments.positiveInteger("--batch-size", default: 500)
        let partitions = try arguments.positiveInteger("--partitions", default: 4)
        let h2load = H2LoadRate(requests: try arguments.positiveInteger("--h2load-requests", default: 200_000), connections: 4, streams: 100)
        var kafkaProperties = ["fetch.wait.max.ms": "2"]
        for property in arguments.all("--kafka-property") {
            let parts = property.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw UsageError(message: "--kafka-property must be KEY=VALUE, got \"\(property)\"") }
            kafkaProperties[parts[0]] = parts[1]
        }
        do {
            try measure(intents: intents, tokens: tokens, halfLoadSeconds: halfLoadSeconds, batchSize: batchSize, partitions: partitions,
                        kafkaProperties: kafkaProperties, h2load: h2load, server: arguments.optional("--server") ?? "apns-sim",
                        encrypt: arguments.flags.contains("--encrypt"))
            return 0
        } catch {
            progress("\(error)")
            return 1
        }
    }

    private static func measure(intents: Int, tokens: Int, halfLoadSeconds: Int, batchSize: Int?, partitions: Int,
                                kafkaProperties: [String: String], h2load: H2LoadRate, server serverName: String, encrypt: Bool) throws {
        progress("starting mock Kafka, redis-server and \(serverName) (load average \(loadAverage()))")
        let cluster = try KafkaMockCluster(brokers: 1)
        try cluster.createTopic(LocalPipeline.intentsTopic, partitions: partitions)
        for topic in LocalPipeline.outputTopics { try cluster.createTopic(topic, partitions: 1) }
        let redis = try RedisServer()
        let bench = try BenchServer(serverName)
        let server = bench.process

        progress("h2load → \(bench.name): \(h2load.requests) requests, \(h2load.connections) connections × \(h2load.streams) streams")
        let rawRate = try h2load.measure(port: server.devicePort, authorization: try developmentToken())
        progress("h2load → \(bench.name): \(Int(rawRate)) req/s")

        let load = try IntentLoad(bootstrapServers: cluster.bootstrapServers, topic: LocalPipeline.intentsTopic, tokensPerIntent: tokens,
                                  tokenPool: bench.tokenPool, sealed: encrypt)
        let keys = encrypt ? try BenchEncryptionKeys(redisPort: redis.port) : nil
        try keys?.register(tokens: load.tokenNumbers(0..<intents), progress: progress)
        try load.preload(0..<intents, progress: progress)

        var configuration = LocalRunConfiguration(bootstrapServers: cluster.bootstrapServers, redisPort: redis.port,
                                                  simulatorPort: server.devicePort, caFile: server.certificateFile)
        configuration.group = "bench-e2e"
        configuration.batchSize = batchSize
        configuration.kafkaProperties = kafkaProperties
        configuration.logLevel = "notice"
        configuration.metricsPort = try FreePort.next()
        configuration.keyEncryptionKeyFile = keys?.keyEncryptionKeyFile
        progress("starting pushline run (\(intents) intents × \(tokens) token(s) waiting)")
        let worker = try ServerProcess(try RepositoryPaths.builtExecutable("pushline"), ["run", "--config", try configuration.write()])
        let reader = try OutcomeReader(bootstrapServers: cluster.bootstrapServers, topic: "pushline.outcomes", worker: worker)
        let cpu = CPUPerDelivery([("pushline run", worker.processID), (bench.name, server.processID),
                                  ("redis-server", redis.processID ?? 0), ("this process (mock Kafka, reader)", getpid())])
        let sustained = try reader.count(intents * tokens) { progress("sustained: \($0)") }
        let cpuSummary = cpu.summary(deliveries: intents * tokens, rate: sustained.rate)
        progress("sustained: \(Int(sustained.rate)) deliveries/s \(sustained.byStatus)")

        let halfRate = sustained.rate / 2
        progress("half load: \(Int(halfRate)) deliveries/s for \(halfLoadSeconds) s")
        let offered = halfLoadSeconds * Int(halfRate) / tokens
        try keys?.register(tokens: load.tokenNumbers(intents..<intents + offered), progress: progress)
        let production = BackgroundWork {
            try load.produceSteadily(intents..<intents + offered, intentsPerSecond: halfRate / Double(tokens)) { progress("half load: \($0)") }
        }
        let latencies = try reader.latencies(offered * tokens) { progress("half load: \($0)") }
        try production.wait()
        let workerPeak = ProcessMemory.peakResidentBytes(of: worker.processID)
        let serverPeak = server.peakResidentBytes
        let stopStatus = worker.stop(graceMilliseconds: 60_000)
        try reader.close()
        try load.close()
        server.stop()
        redis.stop()
        guard stopStatus == 0 else { throw LocalStackError("pushline run exited \(stopStatus) on SIGTERM: \(worker.log.suffix(2000))") }

        let decided = latencies.map(\.decided).sorted()
        let readBack = latencies.map(\.readBack).sorted()
        print("pushline bench e2e: \(intents) intents × \(tokens) token(s) → pushline run (batch.size \(batchSize.map(String.init) ?? "500")) "
            + "→ \(bench.name) process (TLS); mock Kafka (1 broker, \(partitions) intent partitions), redis-server"
            + (encrypt ? "; every delivery sealed (chat_message_sealed)" : "")
            + (kafkaProperties.isEmpty ? "" : "; worker's kafka.properties \(kafkaProperties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"))
        print("sustained: \(Int(sustained.rate)) deliveries/s (\(intents * tokens) deliveries; by status \(sustained.byStatus)) "
            + "— goal ≥ \(Int(deliveriesGoal)): \(sustained.rate >= deliveriesGoal ? "met" : "not met")")
        print("CPU per delivery, worker start to last outcome: \(cpuSummary)")
        print("half load: \(Int(halfRate)) deliveries/s offered for \(halfLoadSeconds) s (\(latencies.count) deliveries)")
        print(String(format: "  created_at → completed_at: p50 %.1f ms, p99 %.1f ms, max %.1f ms", percentile(decided, 0.5),
                     percentile(decided, 0.99), decided.last ?? 0))
        print(String(format: "  created_at → read back:    p50 %.1f ms, p99 %.1f ms, max %.1f ms", percentile(readBack, 0.5),
                     percentile(readBack, 0.99), readBack.last ?? 0)
            + " — goal p99 < \(Int(p99GoalMilliseconds)) ms: \(percentile(readBack, 0.99) < p99GoalMilliseconds ? "met" : "not met")")
        print("peak RSS: pushline run \(mebibytes(workerPeak)), \(bench.name) \(mebibytes(serverPeak))")
        print("h2load → \(bench.name): \(Int(rawRate)) req/s (\(h2load.requests) requests, \(h2load.connections) × \(h2load.streams) streams); "
            + String(format: "ratio pipeline / h2load: %.2f", sustained.rate / rawRate))
        print("load average: \(loadAverage())")
    }

    /// A provider token of the dev key, for h2load's `authorization` header.
    private static func developmentToken() throws -> String {
        let credentials = try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                                       p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
        return try ProviderToken(credentials: credentials, issuedAt: ProviderTokenSource.systemNow()).jwt
    }

    /// The value at `fraction` of sorted `values` (nearest rank).
    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        return values[min(values.count - 1, Int((Double(values.count) * fraction).rounded(.up)) - 1)]
    }

    private static func mebibytes(_ bytes: Int?) -> String {
        bytes.map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "unknown"
    }

    /// The 1, 5 and 15 minute load averages of /proc/loadavg.
    private static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    private static func progress(_ message: String) {
        FileHandle.standardError.write(Data("bench e2e: \(message)\n".utf8))
    }
}
