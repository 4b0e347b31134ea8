import CLI
import Foundation
import LocalStack

/// `pushline-dev bench e2e`'s scaling runs (issue 16): the Redis deployments (`--redis`) and worker
/// counts (`--workers`) each workload runs with, alternated `--rounds` times, and their comparison.
struct BenchE2EScale {
    static let clusterRateGoal = RatiosOverRounds.Goal.atLeast(0.9)
    static let workerCPUGoal = RatiosOverRounds.Goal.atMost(1.1)

    let redis: [BenchRedisTarget.Kind]
    let workers: [Int]
    let rounds: Int

    init(_ arguments: ParsedArguments, workloads: [BenchWorkload], partitions: Int) throws {
        redis = try (arguments.optional("--redis") ?? "single").split(separator: ",").map { name in
            guard let kind = BenchRedisTarget.Kind(rawValue: String(name)) else {
                throw UsageError(message: "--redis: unknown deployment \"\(name)\"; deployments: \(BenchRedisTarget.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
        workers = try (arguments.optional("--workers") ?? "1").split(separator: ",").map { count in
            guard let workers = Int(count), workers > 0 else { throw UsageError(message: "--workers: \"\(count)\" is not a positive number") }
            return workers
        }
        rounds = try arguments.positiveInteger("--rounds", default: 1)
        if let most = workers.max(), most > partitions {
            throw UsageError(message: "--workers \(most): more workers than --partitions \(partitions) leaves some without work")
        }
        if redis.contains(where: \.isCluster), workloads.contains(.sealed) {
            throw UsageError(message: "--redis cluster: the sealed workload registers its device keys on one server; leave it out")
        }
    }

    /// The settings of each round's runs, in order: every deployment × worker count, `rounds` times.
    /// A round runs every workload (and policy mode) in turn, so each is compared with the others
    /// measured beside it.
    func rounds(of settings: BenchE2ECommand.Settings) -> [[BenchE2ECommand.Settings]] {
        (0..<rounds).map { _ in
            redis.flatMap { kind in
                workers.map { count in
                    var run = settings
                    run.redis = kind
                    run.workers = count
                    run.workersFirst = startsWorkersFirst
                    return run
                }
            }
        }
    }

    /// Whether every run starts its workers first and produces the intents once the group has
    /// settled: when some run has more than one worker (then all do, so that they are measured
    /// alike). A member that joins after the mock broker's first 3-second window costs a second
    /// rebalance, during which the partitions handed over wait for `session.timeout.ms` − 1 s
    /// (rdkafka_mock_cgrp.c), which would measure the mock's group protocol, not the workers.
    /// One worker has no group to wait for: its intents are pre-loaded before it starts, however
    /// many rounds or deployments, so that producing them does not share the machine's cores with
    /// the pipeline being measured.
    var startsWorkersFirst: Bool { workers.contains { $0 > 1 } }

    /// Waits until the workers' logs show each of them owning some of the `partitions` intents
    /// partitions and together all of them.
    static func waitForGroup(_ workers: [ServerProcess], partitions: Int, progress: (String) -> Void) throws {
        progress("waiting for \(workers.count) worker(s) to share \(partitions) partitions")
        try Deadline.wait(.seconds(120), for: "\(workers.count) workers to share \(partitions) partitions") {
            WorkerPartitionLog.isSettled(workers.map(\.log), topic: LocalPipeline.intentsTopic, partitions: partitions)
        }
    }

    /// Starts `count` `pushline run` processes of one group with `configuration`, each with its own
    /// metrics port.
    static func startWorkers(_ count: Int, _ configuration: LocalRunConfiguration) throws -> [ServerProcess] {
        try (0..<count).map { _ in
            var own = configuration
            own.metricsPort = try FreePort.next()
            return try ServerProcess(try RepositoryPaths.builtExecutable("pushline"), ["run", "--config", try own.write()])
        }
    }

    /// The processes whose CPU a run measures, in ``BenchE2EResult/cpuMicroseconds``'s order: the
    /// workers, the server, then every redis-server.
    static func processes(workers: [ServerProcess], server: (name: String, id: pid_t), redis: BenchRedisTarget) -> [(name: String, id: pid_t)] {
        workers.enumerated().map { ("pushline run \($0.offset + 1)", $0.element.processID) } + [server] + redis.processes
    }

    /// With more than one run per workload: each run's figures, then the ratios of each round, then
    /// each ratio over the rounds (``RatiosOverRounds``).
    func printComparison(_ results: [BenchE2EResult]) {
        guard results.count > 1, rounds > 1 || redis.count > 1 || workers.count > 1 else { return }
        print("workload     redis    workers  outcomes/s  workers µs (each)            server µs  redis µs (nodes summed)  redis cmds/outcome  cmds/read")
        for result in results {
            let perWorker = result.perWorkerMicroseconds.map { $0.map { String(format: "%.1f", $0) } ?? "?" }.joined(separator: " + ")
            print([result.label(among: results).padding(toLength: 11, withPad: " ", startingAt: 0),
                   result.settings.redis.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
                   BenchE2EResult.pad(String(result.settings.workers), 7), BenchE2EResult.pad(String(Int(result.sustained.rate)), 10),
                   BenchE2EResult.pad(Self.format(result.workerMicroseconds), 10) + " (\(perWorker))".padding(toLength: 18, withPad: " ", startingAt: 0),
                   BenchE2EResult.pad(Self.format(result.serverMicroseconds), 9), BenchE2EResult.pad(Self.format(result.redisMicroseconds), 23),
                   BenchE2EResult.pad(String(format: "%.2f", result.redisCommandsPerOutcome), 18),
                   BenchE2EResult.pad(String(format: "%.1f", result.redisCommandsPerRead), 9)].joined(separator: "  "))
        }
        var ratios = RatiosOverRounds()
        for (round, runs) in Self.resultsByRound(results, rounds: rounds).enumerated() {
            for result in runs where result.settings.redis.isCluster {
                guard let single = result.runBeside(in: runs, where: \.redis, is: .single) else { continue }
                let ratio = result.sustained.rate / single.sustained.rate
                let name = String(format: "%@, %d worker(s): outcomes/s %@ / single", result.label(among: results),
                                  result.settings.workers, result.settings.redis.rawValue)
                print(String(format: "round %d, %@ %.2f — goal %@: ", round + 1, name, ratio, Self.clusterRateGoal.text)
                      + result.judged(Self.clusterRateGoal.isMet(by: ratio)))
                ratios.add(ratio, to: name, goal: Self.clusterRateGoal, judged: result.isComplete)
                ratios.addSpeedAdjusted(ratio, of: result, over: single, name: name, goal: Self.clusterRateGoal, round: "round \(round + 1), ")
            }
            for result in runs where result.settings.workers > 1 {
                guard let one = result.runBeside(in: runs, where: \.workers, is: 1),
                      let many = result.workerMicroseconds, let single = one.workerMicroseconds else { continue }
                let ratio = many / single
                let name = String(format: "%@, %@: workers' CPU per outcome, %d workers / 1 worker", result.label(among: results),
                                  result.settings.redis.rawValue, result.settings.workers)
                print(String(format: "round %d, %@ %.2f — goal %@: ", round + 1, name, ratio, Self.workerCPUGoal.text)
                      + result.judged(Self.workerCPUGoal.isMet(by: ratio)))
                ratios.add(ratio, to: name, goal: Self.workerCPUGoal, judged: result.isComplete)
                ratios.addSpeedAdjusted(ratio, of: result, over: one, perOutcome: true, name: name, goal: Self.workerCPUGoal,
                                        round: "round \(round + 1), ")
            }
        }
        ratios.print(rounds: rounds)
    }

    /// `results` split into the `count` rounds they ran in, each round's runs in their order.
    static func resultsByRound(_ results: [BenchE2EResult], rounds count: Int) -> [ArraySlice<BenchE2EResult>] {
        let perRound = results.count / count
        return (0..<count).map { results[($0 * perRound)..<(($0 + 1) * perRound)] }
    }

    private static func format(_ microseconds: Double?) -> String {
        microseconds.map { String(format: "%.1f", $0) } ?? "?"
    }
}

extension BenchE2EResult {
    /// Each worker's CPU time per outcome of the run (all of the run's outcomes, whichever worker made them).
    var perWorkerMicroseconds: [Double?] { Array(cpuMicroseconds.prefix(settings.workers)) }

    /// The workers' CPU time per outcome, summed; nil when one is unknown.
    var workerMicroseconds: Double? { Self.sum(perWorkerMicroseconds) }

    var serverMicroseconds: Double? { cpuMicroseconds.count > settings.workers ? cpuMicroseconds[settings.workers] : nil }

    /// The bench's own process's CPU time per outcome: the mock Kafka cluster, the intents'
    /// producer and the outcomes' reader (last in ``cpuMicroseconds``).
    var benchProcessMicroseconds: Double? { cpuMicroseconds.count > settings.workers + 1 ? cpuMicroseconds.last ?? nil : nil }

    /// Every redis-server's CPU time per outcome, summed (a cluster's replicas included).
    var redisMicroseconds: Double? { Self.sum(Array(cpuMicroseconds.dropFirst(settings.workers + 1).dropLast())) }

    private var redisCommandCount: Int { redisCalls.filter { $0.key != BenchRedisTarget.readsKey }.values.reduce(0, +) }

    var redisCommandsPerOutcome: Double { Double(redisCommandCount) / Double(max(1, expected.outcomes)) }

    /// Commands per socket read of the Redis servers: about the depth of the pipelines they received.
    var redisCommandsPerRead: Double { Double(redisCommandCount) / Double(max(1, redisCalls[BenchRedisTarget.readsKey] ?? 0)) }

    /// `2.01 (set 1.00, …); 12.3 commands per read`: commands per outcome, the busiest first, and
    /// per socket read.
    var redisCommandsSummary: String {
        let outcomes = Double(max(1, expected.outcomes))
        let parts = redisCalls.filter { $0.value > 0 && $0.key != BenchRedisTarget.readsKey }.sorted { $0.value > $1.value }.prefix(6)
            .map { String(format: "%@ %.3f", $0.key, Double($0.value) / outcomes) }
        return String(format: "%.2f", redisCommandsPerOutcome) + " (" + parts.joined(separator: ", ") + ")"
            + String(format: "; %.1f commands per socket read (total_reads_processed)", redisCommandsPerRead)
    }

    private static func sum(_ values: [Double?]) -> Double? {
        values.contains { $0 == nil } || values.isEmpty ? nil : values.compactMap { $0 }.reduce(0, +)
    }
}

/// The process whose CPU time per outcome a speed-adjusted ratio reads as the machine's speed: one
/// that does the same work for each delivery in both runs, so that what moves its CPU per outcome
/// between them is the machine's speed, which moves every process's alike (docs/BENCHMARKS.md,
/// "The machine's speed taken out").
enum SpeedMeter {
    /// apns-sim (or nghttpd): for runs that send it the same requests — runs that differ only in
    /// policies, the Redis deployment or the number of workers. Not for workloads whose requests differ.
    case server
    /// This process (mock Kafka, reader): for runs that publish the same intents and read as many
    /// outcomes — `sealed` and `unsealed`, whose requests differ (sealed payloads cost the server more).
    case benchProcess

    func microseconds(of result: BenchE2EResult) -> Double? {
        switch self {
        case .server: result.serverMicroseconds
        case .benchProcess: result.benchProcessMicroseconds
        }
    }

    var name: String {
        switch self {
        case .server: "server"
        case .benchProcess: "this process"
        }
    }
}

extension RatiosOverRounds {
    /// Prints and notes one round's `ratio` of runs `a` over `b` with the machine's speed taken out,
    /// under `name` + ", speed-adjusted": `ratio` read in `meter`'s CPU time instead of the clock's:
    /// a rate ratio times how much slower the machine ran `a` than `b` (the meter's CPU per outcome
    /// in `a` over `b`'s), a ratio of CPU per outcome (`perOutcome`) divided by it. Nothing when a
    /// run's meter CPU is unknown.
    mutating func addSpeedAdjusted(_ ratio: Double, of a: BenchE2EResult, over b: BenchE2EResult, meter: SpeedMeter = .server,
                                   perOutcome: Bool = false, name: String, goal: Goal, round: String) {
        guard let aMicroseconds = meter.microseconds(of: a), let bMicroseconds = meter.microseconds(of: b), bMicroseconds > 0 else { return }
        let slowdown = aMicroseconds / bMicroseconds
        let adjusted = perOutcome ? ratio / slowdown : ratio * slowdown
        let judged = a.isComplete && b.isComplete
        Swift.print(String(format: "%@%@, speed-adjusted: %.2f (%@ µs per outcome %.1f / %.1f) — goal %@: ", round, name, adjusted,
                           meter.name, aMicroseconds, bMicroseconds, goal.text)
                    + (judged ? (goal.isMet(by: adjusted) ? "met" : "not met") : "not judged (outcomes not complete)"))
        add(adjusted, to: name + ", speed-adjusted", goal: goal, judged: judged)
    }
}
