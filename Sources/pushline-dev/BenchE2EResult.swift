import Foundation

/// One workload's figures in `pushline-dev bench e2e`, and how they are printed.
struct BenchE2EResult {
    let workload: BenchWorkload
    let settings: BenchE2ECommand.Settings
    let serverName: String
    let expected: BenchWorkload.Expectation
    let sustained: OutcomeReader.Throughput
    let cpu: CPUPerDelivery
    /// Per process of ``cpu``: the workers first, then the server, the redis-servers and this process
    /// (``BenchE2EScale/processes(workers:server:redis:)``).
    let cpuMicroseconds: [Double?]
    let halfRate: Double
    let latencies: [OutcomeReader.Latency]
    let workerPeak: Int?
    let serverPeak: Int?
    /// Commands Redis executed over the sustained phase, by name (`INFO commandstats`, masters summed).
    let redisCalls: [String: Int]

    /// Whether every delivery ended with its expected outcome, status by status.
    var isComplete: Bool { sustained.byStatus == expected.byStatus }

    private var readBack: [Double] { latencies.map(\.readBack).sorted() }

    /// The workload's block of figures.
    func print(rawRate: Double) {
        let decided = latencies.map(\.decided).sorted()
        Swift.print("[\(workload)] \(settings.intents) intents → pushline run (batch.size \(settings.batchSize.map(String.init) ?? "500")) "
            + "→ \(serverName) process (TLS); mock Kafka (1 broker, \(settings.partitions) intent partitions), redis-server"
            + "; worker's kafka.properties \(settings.kafkaProperties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
        Swift.print("[\(workload)] outcomes: \(sustained.byStatus.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
            + (isComplete ? "complete (every delivery has its expected outcome)"
                : "NOT complete: expected \(expected.byStatus.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"))
        Swift.print("[\(workload)] sustained: \(Int(sustained.rate)) outcomes/s — goal ≥ \(Int(BenchE2ECommand.deliveriesGoal)): "
            + judged(sustained.rate >= BenchE2ECommand.deliveriesGoal))
        Swift.print("[\(workload)] CPU per outcome, worker start to last outcome: \(cpu.summary(cpuMicroseconds, rate: sustained.rate))")
        Swift.print("[\(workload)] half load: \(Int(halfRate)) outcomes/s offered for \(settings.halfLoadSeconds) s (\(latencies.count) outcomes)")
        Swift.print(String(format: "[%@]   created_at → completed_at: p50 %.1f ms, p99 %.1f ms, max %.1f ms", workload.rawValue,
                           Self.percentile(decided, 0.5), Self.percentile(decided, 0.99), decided.last ?? 0))
        Swift.print(String(format: "[%@]   created_at → read back:    p50 %.1f ms, p99 %.1f ms, max %.1f ms", workload.rawValue,
                           Self.percentile(readBack, 0.5), Self.percentile(readBack, 0.99), readBack.last ?? 0)
            + " — goal p99 < \(Int(BenchE2ECommand.p99GoalMilliseconds)) ms: "
            + judged(Self.percentile(readBack, 0.99) < BenchE2ECommand.p99GoalMilliseconds))
        let wayBack = latencies.map { $0.readBack - $0.decided }.sorted()
        Swift.print(String(format: "[%@]   completed_at → read back:  p50 %.1f ms, p99 %.1f ms (the outcome's record in Redis, producing, Kafka, this reader)",
                           workload.rawValue, Self.percentile(wayBack, 0.5), Self.percentile(wayBack, 0.99)))
        if let byStatus = readBackByStatus { Swift.print("[\(workload)]   read back by status: \(byStatus)") }
        Swift.print("[\(workload)] Redis commands per outcome: \(redisCommandsSummary)")
        Swift.print("[\(workload)] peak RSS: pushline run \(Self.mebibytes(workerPeak)), \(serverName) \(Self.mebibytes(serverPeak)); "
            + String(format: "ratio pipeline / h2load: %.2f", sustained.rate / rawRate))
    }

    /// The read-back p99 of each status, with the outcomes' count, when the half load had more than
    /// one status: whether one of them (`mixed`'s copies, settled `suppressed` behind their first
    /// attempt; its invalid intents) makes the p99, or all share it.
    private var readBackByStatus: String? {
        let byStatus = Dictionary(grouping: latencies, by: \.status)
        guard byStatus.count > 1 else { return nil }
        return byStatus.sorted { $0.key < $1.key }.map { status, latencies in
            String(format: "%@ p99 %.1f ms (%d)", status, Self.percentile(latencies.map(\.readBack).sorted(), 0.99), latencies.count)
        }.joined(separator: ", ")
    }

    /// The workloads side by side; then, per round of `rounds`, each workload's rate and worker CPU
    /// per outcome against the runs of its ``BenchWorkload/baselines`` in the same round with the
    /// same settings (sealed / unsealed's rate also speed-adjusted, ``BenchWorkload/speedMeter(against:)``);
    /// then, over the rounds, each ratio's median and range (``RatiosOverRounds``).
    static func printSideBySide(_ results: [BenchE2EResult], rawRate: Double, rounds: Int) {
        guard results.count > 1 else { return }
        Swift.print("workload    outcomes  complete  outcomes/s   / h2load  worker µs  server µs  redis µs  p99 read back")
        for result in results {
            let micro = [result.workerMicroseconds, result.serverMicroseconds, result.redisMicroseconds].map { $0.map { String(format: "%.1f", $0) } ?? "?" }
            let columns = [result.workload.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0), pad(String(result.expected.outcomes), 9),
                           (result.isComplete ? "yes" : "NO").padding(toLength: 8, withPad: " ", startingAt: 0),
                           pad(String(Int(result.sustained.rate)), 10), pad(String(format: "%.2f", result.sustained.rate / rawRate), 8),
                           pad(micro[0], 9), pad(micro[1], 9), pad(micro[2], 8),
                           pad(String(format: "%.1f ms", percentile(result.readBack, 0.99)), 13)]
            Swift.print(columns.joined(separator: "  "))
        }
        var ratios = RatiosOverRounds()
        for (round, runs) in BenchE2EScale.resultsByRound(results, rounds: rounds).enumerated() {
            let prefix = rounds > 1 ? "round \(round + 1), " : ""
            for result in runs where result.workload != .tokens {
                for baseline in result.workload.baselines {
                    guard let base = result.runBeside(in: runs, where: \.workload, is: baseline) else { continue }
                    let judged = result.isComplete && base.isComplete
                    let rateName = "outcomes/s, \(result.label(among: results)) / \(baseline)"
                    let rate = result.sustained.rate / base.sustained.rate
                    Swift.print(prefix + rateName + String(format: ": %.2f", rate))
                    let rateGoal = result.workload.rateGoal(against: baseline)
                    ratios.add(rate, to: rateName, goal: rateGoal, judged: judged)
                    if let meter = result.workload.speedMeter(against: baseline), let rateGoal {
                        ratios.addSpeedAdjusted(rate, of: result, over: base, meter: meter, name: rateName, goal: rateGoal, round: prefix)
                    }
                    guard let micro = result.workerMicroseconds, let baseMicro = base.workerMicroseconds else { continue }
                    let cpuName = "worker CPU per outcome, \(result.label(among: results)) / \(baseline)"
                    Swift.print(prefix + cpuName + String(format: ": %.2f", micro / baseMicro))
                    ratios.add(micro / baseMicro, to: cpuName, goal: result.workload.workerCPUGoal(against: baseline), judged: judged)
                }
            }
        }
        ratios.print(rounds: rounds)
    }

    /// What the runs of one round (``BenchE2EScale/resultsByRound(_:rounds:)``) differ in.
    struct RoundSettings: Equatable {
        var workload: BenchWorkload
        var policies: BenchPolicies
        var redis: BenchRedisTarget.Kind
        var workers: Int
    }

    private var roundSettings: RoundSettings {
        RoundSettings(workload: workload, policies: settings.policies, redis: settings.redis, workers: settings.workers)
    }

    /// The run of `round` equal to this one in every setting but `setting`, which is `value` there:
    /// the run a ratio of this round compares this one with (`\.workload, is: .tokens`: the tokens
    /// run with the same policy mode, Redis deployment and worker count). Nil when the round has none.
    func runBeside<Value>(in round: ArraySlice<BenchE2EResult>, where setting: WritableKeyPath<RoundSettings, Value>,
                          is value: Value) -> BenchE2EResult? {
        var wanted = roundSettings
        wanted[keyPath: setting] = value
        return round.first { $0.roundSettings == wanted }
    }

    /// "met" or "not met" when the outcomes are complete; otherwise not judged.
    func judged(_ met: Bool) -> String {
        guard isComplete else { return "not judged (outcomes not complete)" }
        return met ? "met" : "not met"
    }

    /// `text` right-aligned in `width` columns.
    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// The value at `fraction` of sorted `values` (nearest rank).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        return values[min(values.count - 1, Int((Double(values.count) * fraction).rounded(.up)) - 1)]
    }

    private static func mebibytes(_ bytes: Int?) -> String {
        bytes.map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "unknown"
    }
}
