import APNsClient
import CLI
import Foundation
import Kafka
import LocalStack
import Pipeline
import Redis

/// `pushline-dev bench e2e`: deliveries per second and end-to-end latency of `pushline run` on local
/// components, beside h2load's raw rate against the same server.
enum BenchE2ECommand: Command {
    static let name = "bench e2e"
    static let summary = "deliveries per second and latency of `pushline run` on mock Kafka, redis-server and apns-sim"
    static let help = """
        Usage: pushline-dev bench e2e [--workloads tokens,sealed,unsealed,users,mixed,lanes,deferred] [--intents N] [--tokens K]
                                  [--half-load-seconds S] [--batch-size B] [--partitions P]
                                  [--h2load-requests R] [--kafka-property KEY=VALUE]…
                                  [--server apns-sim|nghttpd] [--policies off|on|both]
                                  [--transactional-rate T] [--read-ahead A] [--lightest-batches L]
                                  [--redis single|cluster|cluster-replicas[,…]] [--workers N[,…]] [--rounds R]

        Measures the whole pipeline on this machine. Starts, in this process, librdkafka's mock
        Kafka cluster (one broker); as processes of their own, a redis-server on a free port and the
        APNs server: the apns-sim built beside this executable (TLS on a free port, its own
        self-signed certificate, 1 event loop), or with --server nghttpd, nghttp2's own server
        (Debian package nghttp2-server; TLS, a self-signed certificate, 200 for 4,096 known device
        tokens, which the intents then cycle through); then:

          1. h2load (Debian package nghttp2-client) against that server: R requests over 4
             connections × 100 streams with a provider token of the dev key — the raw rate of the
             server, the reference the pipeline's rate is compared with.
          2. Then for each workload, on a fresh mock Kafka cluster and redis-server, pre-loads N
             intents on pushline.intents (P partitions):
               tokens  the example app's chat_message in English, each to K device tokens of its
                       own (for nghttpd, K of its 4,096 in turn): N × K deliveries
               sealed  tokens, with every delivery sealed for a Notification Service Extension
                       (chat_message_sealed, docs/service-extension.md): a device key registered
                       for every token before its intents are produced
               unsealed sealed's intents with chat_message_unsealed, its template without
                       encrypt (the photo URL and the sender in the clear, no keys): sealed's rate
                       is judged against it, encryption on against off (goal ≥ 0.85)
               users   the same chat_message, each to a user of the token registry with K devices
                       (50,000 users, registered before the worker starts): addressing alone differs
               mixed   what backends publish, of every 100 intents: 68 to users with 1–4 devices
                       in 8 locales (cart_reminder, rendered in the user's locale, plurals), 19 to
                       a token (chat_message), 9 to a token with a collapse id (order_update), 3
                       copies of the intent before them (suppressed DuplicateIntent) and 1 naming
                       no template of the app (invalid UnknownTemplate): the shares 70/20/10 with
                       the copies and the invalid one taken out of them
               lanes   instead of steps 3–4 (issue 17, BenchE2E+Lanes.swift): a pipeline with the
                       lanes transactional (4) and bulk (1); transactional intents at T/s for S s
                       on the last partition, first idle, then while N bulk intents pre-loaded on
                       the other partitions drain; their p99 from created_at to completed_at in
                       both phases, and the ratio (goal ≤ 2); with --rounds R, R such runs
               deferred instead of steps 3–4 (issue 17, BenchE2E+Deferred.swift): a pipeline with
                       quiet hours from a minute before now to \(deferredWindowMinutes) minutes after
                       the current minute (UTC); the N tokens intents pre-loaded are all deferred,
                       then released at the window's end: the rate of their final outcomes read
                       back, and its ratio to the tokens workload's rate with the policies off when
                       that ran too (goal ≥ 0.8), raw and speed-adjusted by the server's CPU per
                       delivery (the same requests; the two phases run minutes apart)
          3. Starts `pushline run` (the real worker, as a process of its own) with a configuration
             of those components (Redis dedupe on, outcomes to pushline.outcomes) and reads the
             outcomes back: the sustained rate is the outcomes read back per second, from the
             first outcome to the last. The outcomes are complete when every delivery has its
             expected outcome, by status (accepted, and for mixed also suppressed and invalid).
          4. Half load: produces intents at a steady rate of half the sustained deliveries per second
             for S seconds, each with `created_at` the moment it is produced, and reads their
             outcomes back: latency p50/p99 from `created_at` to the outcome's `completed_at`, and to
             the moment this process read the outcome from Kafka.
          5. Stops the worker with SIGTERM (it must exit 0).

        Prints, per workload, the figures, the CPU time per delivery of each process over the
        sustained phase (from the worker's start to the last outcome read back: pushline run, the
        server, redis-server, and this process — the mock broker and the outcome reader), the peak
        resident memory of the worker and of the server, and the ratio of the sustained rate to
        h2load's; then the workloads side by side, each one's rate and the worker's CPU per outcome
        against tokens, and the load average. Progress goes to standard error.
        The goals of issue #7: at least 50,000 deliveries/s, and p99 under 50 ms at half load;
        judged only when the outcomes are complete (otherwise "not judged", with what was missing).

        Options:
          --workloads W,W…        the workloads, in this order (default tokens)
          --intents N             intents pre-loaded for the sustained rate (default 200000); the
                                  mock broker keeps a partition's newest 5 MB (about 120,000
                                  token intents): a run of one worker that loses some to it ends
                                  with an error (lanes and several workers are not checked)
          --tokens K              device tokens per intent (default 1)
          --half-load-seconds S   how long the half load is offered (default 10)
          --batch-size B          the pipeline's batch.size (default: the configuration's, 500)
          --partitions P          partitions of pushline.intents (default 4)
          --h2load-requests R     requests of the h2load run (default 200000)
          --server NAME           apns-sim (default) or nghttpd: the server pushes go to
          --policies MODE         off (default), on, or both: each workload with the delivery
                                  policies off, then on, and the ratio of the two rates
                                  (BenchE2E+Policies.swift, docs/policies.md)
          --transactional-rate T  lanes: transactional intents per second (default 200)
          --read-ahead A          lanes: the pipeline's policies.lanes.read_ahead (default 5000)
          --lightest-batches L    lanes: the pipeline's policies.lanes.lightest_batches, 1–64, or
                                  none (default \(LanesSettings.defaultLightestBatches))
          --kafka-property K=V    a librdkafka property for the worker (kafka.properties);
                                  repeatable. Default: fetch.wait.max.ms=2 — librdkafka's mock
                                  broker holds a fetch that finds nothing new for the whole
                                  fetch.wait.max.ms (500 ms by default), even when messages
                                  arrive meanwhile; a real broker answers as soon as they do
                                  (docs/BENCHMARKS.md)
          --redis K,K…            single (default): one redis-server; cluster: a Redis Cluster
                                  of 3 masters (redis-cli --cluster create), pushline run with
                                  redis.mode: cluster; cluster-replicas: the same with a replica
                                  per master (their replication shares this machine's cores).
                                  Several: each in turn
          --workers N,N…          pushline run processes in the group (default 1); several:
                                  each in turn. See "Scaling runs" below
          --rounds R              the runs of --redis × --workers, each workload and --policies
                                  mode in turn, R times alternating (default 1); with R > 1,
                                  each ratio's median and range over the rounds, and its goal
                                  judged on all of them: met when the median round and two
                                  thirds of the rounds meet it (RatiosOverRounds.swift)
          -h, --help              show this help

        Scaling runs (issue 16): with several --redis or --workers values, or --rounds, each
        workload runs once per combination, in turn, and the end prints them side by side: the
        rate, CPU per delivery of all workers summed and of each, of the Redis nodes summed, Redis
        commands per delivery (INFO commandstats over the masters), and per round the ratios the
        goals judge: cluster / single deliveries per second (goal ≥ 0.9, same workers), and the
        workers' summed CPU per delivery, N workers / 1 worker (goal ≤ 1.1, same Redis), and with
        --policies both the rate with policies on / off (goal ≥ 0.85). Each of these ratios is
        printed again "speed-adjusted": multiplied (a rate) or divided (CPU per delivery) by the
        server's CPU per delivery in the one run over the other's. The server does the same work
        per request in both, so that quotient is how much slower the machine ran, which moves
        every process alike; it takes out most of a round's swing (docs/BENCHMARKS.md). With
        --workloads unsealed,sealed, sealed / unsealed's rate (goal ≥ 0.85) is speed-adjusted by
        this process's CPU per delivery instead (mock Kafka, reader: the same intents and as many
        outcomes in both; sealed payloads cost the server more).
        When some run has more than one worker, every run starts its workers first, and the
        intents are produced once the workers' logs show the partitions shared (a late joiner
        would cost the mock broker's rebalance delay inside the measured phase); otherwise they
        are pre-loaded before the worker starts, as in a single run. --workers may not exceed
        --partitions.
        --redis cluster(-replicas) does not run the sealed workload (its key registry is set up on one
        server).

        Exit 0 when every step finished; 1 when a component could not start, the worker stopped,
        or outcomes stopped arriving for 60 seconds.
        """
    static let arguments = ArgumentSpec(valueOptions: [
        "--workloads", "--intents", "--tokens", "--half-load-seconds", "--batch-size", "--partitions", "--h2load-requests", "--server",
        "--policies",
        "--transactional-rate", "--read-ahead", "--lightest-batches",
        "--redis", "--workers", "--rounds",
    ], repeatableOptions: ["--kafka-property"])

    static let deliveriesGoal = 50_000.0
    static let p99GoalMilliseconds = 50.0

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let names = (arguments.optional("--workloads") ?? "tokens").split(separator: ",")
        let runsLanes = names.contains("lanes")
        let runsDeferred = names.contains("deferred")
        let workloads = try names.filter { $0 != "lanes" && $0 != "deferred" }.map { name in
            guard let workload = BenchWorkload(rawValue: String(name)) else {
                throw UsageError(message: "unknown workload \"\(name)\"; workloads: \((BenchWorkload.allCases.map(\.rawValue) + ["lanes", "deferred"]).joined(separator: ", "))")
            }
            return workload
        }
        let serverName = arguments.optional("--server") ?? "apns-sim"
        if serverName == "nghttpd", workloads != [.tokens] || runsLanes || runsDeferred {
            throw UsageError(message: "--server nghttpd knows only its 4,096 tokens: it runs the tokens workload alone")
        }
        var settings = Settings(intents: try arguments.positiveInteger("--intents", default: 200_000),
                                tokens: try arguments.positiveInteger("--tokens", default: 1),
                                halfLoadSeconds: try arguments.positiveInteger("--half-load-seconds", default: 10),
                                partitions: try arguments.positiveInteger("--partitions", default: 4))
        settings.batchSize = arguments.optional("--batch-size") == nil ? nil : try arguments.positiveInteger("--batch-size", default: 500)
        let h2load = H2LoadRate(requests: try arguments.positiveInteger("--h2load-requests", default: 200_000), connections: 4, streams: 100)
        settings.kafkaProperties = try arguments.keyValues("--kafka-property", over: settings.kafkaProperties)
        let policyModes = try BenchPolicies.modes(arguments)
        let lanes = LanesSettings(backlog: settings.intents, transactionalPerSecond: try arguments.positiveInteger("--transactional-rate", default: 200),
                                  seconds: settings.halfLoadSeconds, readAhead: try arguments.positiveInteger("--read-ahead", default: 5_000),
                                  lightestBatches: try LanesSettings.lightestBatches(arguments.optional("--lightest-batches")))
        let scale = try BenchE2EScale(arguments, workloads: workloads, partitions: settings.partitions)
        do {
            progress("starting \(serverName) (load average \(loadAverage()))")
            let bench = try BenchServer(serverName)
            defer { bench.process.stop() }
            progress("h2load → \(bench.name): \(h2load.requests) requests, \(h2load.connections) connections × \(h2load.streams) streams")
            let reference = try h2load.measure(port: bench.process.devicePort, authorization: try developmentToken(),
                                               server: bench.process.processID)
            let rawRate = reference.rate
            progress("h2load → \(bench.name): \(Int(rawRate)) req/s")
            var results: [(policies: BenchPolicies, result: BenchE2EResult)] = []
            for round in scale.rounds(of: settings) {
                for workload in workloads {
                    for policies in policyModes {
                        for var runSettings in round {
                            runSettings.policies = policies
                            let result = try measure(workload, runSettings, bench: bench)
                            print("[\(workload)] policies \(policies)")
                            result.print(rawRate: rawRate)
                            results.append((policies, result))
                        }
                    }
                }
            }
            if runsLanes {
                var ratios = RatiosOverRounds()
                for round in 1...scale.rounds {
                    if scale.rounds > 1 { progress("lanes: round \(round) of \(scale.rounds)") }
                    let run = try measureLanes(settings, lanes, bench: bench)
                    ratios.add(run.ratio, to: latencyRatioName, goal: latencyRatioGoal, judged: run.judged)
                }
                ratios.print(rounds: scale.rounds)
            }
            if runsDeferred {
                let tokens = results.last { $0.policies == .off && $0.result.workload == .tokens }?.result
                printDeferred(try measureDeferred(settings, bench: bench), settings: settings, tokens: tokens)
            }
            BenchE2EResult.printSideBySide(results.map(\.result), rawRate: rawRate, rounds: scale.rounds)
            BenchPolicies.printRatios(results.map(\.result), rounds: scale.rounds)
            scale.printComparison(results.map(\.result))
            print("h2load → \(bench.name): \(Int(rawRate)) req/s (\(h2load.requests) requests, \(h2load.connections) × \(h2load.streams) streams); "
                  + "CPU per request: h2load \(String(format: "%.1f", reference.clientMicroseconds)) µs, "
                  + "\(bench.name) \(reference.serverMicroseconds.map { String(format: "%.1f µs", $0) } ?? "unknown") "
                  + "(one token, fields HPACK indexes, no apns-id)")
            print("load average: \(loadAverage())")
            return 0
        } catch {
            progress("\(error)")
            return 1
        }
    }

    /// What every workload of a run shares.
    struct Settings {
        var intents: Int
        var tokens: Int
        var halfLoadSeconds: Int
        var partitions: Int
        var batchSize: Int?
        var kafkaProperties = ["fetch.wait.max.ms": "2"]
        var policies = BenchPolicies.off
        var redis = BenchRedisTarget.Kind.single
        var workers = 1
        /// Runs with several workers: the workers start first, the intents are produced once the group has settled.
        var workersFirst = false
    }

    private static func measure(_ workload: BenchWorkload, _ settings: Settings, bench: BenchServer) throws -> BenchE2EResult {
        let server = bench.process
        progress("\(workload): starting mock Kafka and Redis (\(settings.redis))")
        let stack = try BenchE2EStack(partitions: settings.partitions, redis: settings.redis)
        let (cluster, redis) = (stack.cluster, stack.redis)
        defer { redis.stop() }
        try register(workload, settings, redis: redis.configuration)

        let load = try IntentLoad(bootstrapServers: cluster.bootstrapServers, topic: LocalPipeline.intentsTopic, workload: workload,
                                  tokensPerIntent: settings.tokens, tokenPool: bench.tokenPool, fields: settings.policies.intentFields)
        let keys = workload == .sealed ? try BenchEncryptionKeys(redisPort: redis.port) : nil
        try keys?.register(tokens: load.tokenNumbers(0..<settings.intents)) { progress("\(workload): \($0)") }
        if !settings.workersFirst { try load.preloadBeforeWorkers(0..<settings.intents) { progress("\(workload): \($0)") } }
        let expected = workload.expectation(0..<settings.intents, tokensPerIntent: settings.tokens)

        var configuration = try stack.workerConfiguration(settings, server: bench)
        configuration.keyEncryptionKeyFile = keys?.keyEncryptionKeyFile
        configuration.policies = settings.policies.pipelineLines
        progress("\(workload): starting \(settings.workers) pushline run (\(settings.intents) intents waiting, \(expected.outcomes) outcomes expected)")
        let reader = try OutcomeReader(bootstrapServers: cluster.bootstrapServers, topic: "pushline.outcomes")
        let workers = try BenchE2EScale.startWorkers(settings.workers, configuration)
        reader.workers = workers
        let callsBefore = try redis.commandCalls()
        let cpu = CPUPerDelivery(BenchE2EScale.processes(workers: workers, server: (bench.name, server.processID), redis: redis)
                                 + [("this process (mock Kafka, reader)", getpid())])
        // With the workers first, the intents are produced while the workers already consume them:
        // the reader counts meanwhile, so the rate runs from the first outcome, not from the end of
        // the pre-loading.
        var preloading: BackgroundWork?
        if settings.workersFirst {
            try BenchE2EScale.waitForGroup(workers, partitions: settings.partitions) { progress("\(workload): \($0)") }
            preloading = BackgroundWork { try load.preload(0..<settings.intents) { progress("\(workload): \($0)") } }
        }
        let sustained = try reader.count(expected.outcomes) { progress("\(workload): sustained: \($0)") }
        try preloading?.wait()
        let cpuMicroseconds = cpu.microseconds(deliveries: expected.outcomes)
        let redisCalls = try redis.commandCalls().merging(callsBefore) { after, before in after - before }
        guard sustained.rate > 0 else {
            throw LocalStackError("\(workload): all \(expected.outcomes) outcomes came in one read, so there is no rate to measure: give more --intents")
        }
        progress("\(workload): sustained: \(Int(sustained.rate)) outcomes/s \(sustained.byStatus)")

        let halfRate = sustained.rate / 2
        let outcomesPerIntent = Double(expected.outcomes) / Double(settings.intents)
        let offered = max(1, Int(Double(settings.halfLoadSeconds) * halfRate / outcomesPerIntent))
        progress("\(workload): half load: \(Int(halfRate)) outcomes/s for \(settings.halfLoadSeconds) s")
        try keys?.register(tokens: load.tokenNumbers(settings.intents..<settings.intents + offered)) { progress("\(workload): \($0)") }
        // Counted before the production starts: outcomes produced while it was being counted would
        // wait for the reader, and their read-back latency would measure this count.
        let halfLoadExpected = workload.expectation(settings.intents..<settings.intents + offered, tokensPerIntent: settings.tokens)
        let production = BackgroundWork {
            try load.produceSteadily(settings.intents..<settings.intents + offered, intentsPerSecond: halfRate / outcomesPerIntent) {
                progress("\(workload): half load: \($0)")
            }
        }
        let latencies = try reader.latencies(halfLoadExpected.outcomes) { progress("\(workload): half load: \($0)") }
        try production.wait()
        let workerPeak = workers.compactMap { ProcessMemory.peakResidentBytes(of: $0.processID) }.max()
        for worker in workers {
            let stopStatus = worker.stop(graceMilliseconds: 60_000)
            guard stopStatus == 0 else { throw LocalStackError("pushline run exited \(stopStatus) on SIGTERM: \(worker.log.suffix(2000))") }
        }
        try reader.close()
        try load.close()
        return BenchE2EResult(workload: workload, settings: settings, serverName: bench.name, expected: expected, sustained: sustained,
                              cpu: cpu, cpuMicroseconds: cpuMicroseconds, halfRate: halfRate, latencies: latencies,
                              workerPeak: workerPeak, serverPeak: server.peakResidentBytes, redisCalls: redisCalls)
    }

    /// Registers the workload's users in the token registry, in round trips of 5,000.
    private static func register(_ workload: BenchWorkload, _ settings: Settings, redis: RedisConfiguration) throws {
        let registrations = try workload.registrations(tokensPerIntent: settings.tokens)
        guard !registrations.isEmpty else { return }
        progress("\(workload): registering \(BenchWorkload.userCount) users' \(registrations.count) devices")
        let registry = TokenRegistry(connection: try RedisConnection(configuration: redis))
        for start in stride(from: 0, to: registrations.count, by: 5_000) {
            _ = try registry.apply(Array(registrations[start..<min(start + 5_000, registrations.count)]))
        }
    }

    /// A provider token of the dev key, for h2load's `authorization` header.
    private static func developmentToken() throws -> String {
        let credentials = try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                                       p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
        return try ProviderToken(credentials: credentials, issuedAt: ProviderTokenSource.systemNow()).jwt
    }

    /// The 1, 5 and 15 minute load averages of /proc/loadavg.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func progress(_ message: String) {
        FileHandle.standardError.write(Data("bench e2e: \(message)\n".utf8))
    }
}
