import PushlineTestKit
import Testing

/// `pushline-dev bench e2e --redis … --workers …` (issue 16's benchmark), run small: it must finish
/// with every delivery's outcome in each combination and print the comparison; the figures are not
/// judged here (tests never assert timings).
@Suite("pushline-dev bench e2e: Redis Cluster and several workers", .timeLimit(.minutes(5)))
struct BenchE2EScaleTests {
    @Test("single and cluster × one and two workers: every run complete, then the table and each round's ratios")
    func singleAndClusterWithOneAndTwoWorkers() async throws {
        let (lines, output) = try await Self.benchE2E("--intents", Self.intents, "--redis", "single,cluster", "--workers", "1,2")
        let complete = lines.filter { $0 == "[tokens] outcomes: accepted \(Self.intents); complete (every delivery has its expected outcome)" }
        #expect(complete.count == 4, "\(output)")
        #expect(lines.contains { $0.hasPrefix("workload     redis    workers") })
        #expect(lines.contains { $0.hasPrefix("round 1, tokens, 1 worker(s): outcomes/s cluster / single ") })
        #expect(lines.contains { $0.hasPrefix("round 1, tokens, 2 worker(s): outcomes/s cluster / single ") })
        #expect(lines.contains { $0.hasPrefix("round 1, tokens, cluster: workers' CPU per outcome, 2 workers / 1 worker ") })
        // Three redis-server (the masters, no replicas) in the cluster runs, each named in the CPU line.
        let cluster = lines.filter { $0.hasPrefix("[tokens] CPU per outcome") && $0.contains("pushline run 2") }
        #expect(cluster.contains { $0.components(separatedBy: "redis-server :").count - 1 == 3 }, "\(cluster)")
    }

    @Test("policies both, two rounds: off and on alternate, the rows say which, each round has its on / off ratio, and a summary over the rounds follows")
    func policiesBothInRounds() async throws {
        let (lines, output) = try await Self.benchE2E("--intents", Self.intents, "--policies", "both", "--rounds", "2")
        #expect(lines.filter { $0.hasPrefix("[tokens] policies ") } == ["[tokens] policies off", "[tokens] policies on",
                                                                        "[tokens] policies off", "[tokens] policies on"])
        #expect(lines.filter { $0.hasPrefix("tokens off   single ") }.count == 2, "\(output)")
        #expect(lines.filter { $0.hasPrefix("tokens on    single ") }.count == 2, "\(output)")
        for round in 1...2 {
            #expect(lines.contains { $0.hasPrefix("round \(round), [tokens] policies on / off: ") && $0.contains("— goal ≥ 0.85") },
                    "\(output)")
        }
        #expect(lines.contains { $0.hasPrefix("over 2 rounds, [tokens] policies on / off: median ") && $0.contains("; goal ≥ 0.85 in ") },
                "\(output)")
    }

    @Test("policies both with one and two workers: each worker ratio compares runs of the same policy mode")
    func workerRatiosPairTheSamePolicyMode() async throws {
        let (lines, output) = try await Self.benchE2E("--intents", Self.intents, "--policies", "both", "--workers", "1,2")
        // The table's rows: `tokens off   single   1   <outcomes/s>   <workers µs> (…)`.
        func workersMicroseconds(_ mode: String, _ workers: Int) -> Double? {
            let row: [Substring] = ["tokens", Substring(mode), "single", Substring(String(workers))]
            let fields = lines.map { $0.split(separator: " ") }.first { $0.count > 5 && Array($0.prefix(4)) == row }
            return fields.flatMap { Double($0[5]) }
        }
        for mode in ["off", "on"] {
            let prefix = "round 1, tokens \(mode), single: workers' CPU per outcome, 2 workers / 1 worker "
            let printed = try #require(lines.first { $0.hasPrefix(prefix) }, "\(output)")
            let ratio = try #require(Double(printed.dropFirst(prefix.count).prefix { $0 != " " }), "\(printed)")
            let one = try #require(workersMicroseconds(mode, 1), "\(output)")
            let two = try #require(workersMicroseconds(mode, 2), "\(output)")
            // The table's figures are rounded to 0.1 µs, the ratio to 0.01.
            #expect(abs(ratio - two / one) < 0.02, "\(mode): printed \(ratio), table \(two) / \(one)\n\(output)")
        }
    }

    @Test("two rounds of tokens and sealed: each round's sealed / tokens ratios divide by that round's tokens run, and the summary over the rounds takes their median")
    func workloadRatiosPairTheSameRound() async throws {
        let (lines, output) = try await Self.benchE2E("--intents", Self.intents, "--workloads", "tokens,sealed", "--rounds", "2")
        // The side-by-side rows: `<workload>  <outcomes>  yes  <outcomes/s>  <÷ h2load>  <worker µs> …`,
        // in the order the runs were made: round 1's tokens and sealed, then round 2's.
        let rows = lines.map { $0.split(separator: " ") }.filter { $0.count > 5 && $0[2] == "yes" }
        let rates = rows.map { (workload: String($0[0]), rate: Double($0[3]) ?? 0, worker: Double($0[5]) ?? 0) }
        #expect(rates.map(\.workload) == ["tokens", "sealed", "tokens", "sealed"], "\(output)")
        guard rates.count == 4 else { return }
        var rateRatios: [Double] = []
        for round in 1...2 {
            let (tokens, sealed) = (rates[2 * round - 2], rates[2 * round - 1])
            let printed = try #require(lines.first { $0.hasPrefix("round \(round), outcomes/s, sealed / tokens: ") }, "\(output)")
            let ratio = try #require(Double(printed.split(separator: " ").last ?? ""), "\(printed)")
            // Rates are printed whole, the ratio to 0.01.
            #expect(abs(ratio - sealed.rate / tokens.rate) < 0.006, "round \(round): printed \(ratio)\n\(output)")
            rateRatios.append(sealed.rate / tokens.rate)
            let cpu = try #require(lines.first { $0.hasPrefix("round \(round), worker CPU per outcome, sealed / tokens: ") },
                                   "\(output)")
            let cpuRatio = try #require(Double(cpu.split(separator: " ").last ?? ""), "\(cpu)")
            // The table's µs are rounded to 0.1.
            #expect(abs(cpuRatio - sealed.worker / tokens.worker) < 0.02, "round \(round): printed \(cpuRatio)\n\(output)")
        }
        // `over 2 rounds, outcomes/s, sealed / tokens: median 1.02 (0.98 to 1.06)`: the median of two is
        // their mean. No goal against tokens: sealed's is judged against unsealed (BenchE2ECommandTests).
        let prefix = "over 2 rounds, outcomes/s, sealed / tokens: median "
        let summary = try #require(lines.first { $0.hasPrefix(prefix) }, "\(output)")
        let median = try #require(Double(summary.dropFirst(prefix.count).prefix { $0 != " " }), "\(summary)")
        #expect(abs(median - (rateRatios[0] + rateRatios[1]) / 2) < 0.006, "\(summary), rounds \(rateRatios)")
        #expect(!summary.contains("goal"), "\(summary)")
        // The CPU ratio of sealed has no goal: its summary is the median and range alone.
        let cpuSummary = try #require(lines.first { $0.hasPrefix("over 2 rounds, worker CPU per outcome, sealed / tokens: median ") },
                                      "\(output)")
        #expect(!cpuSummary.contains("goal"), "\(cpuSummary)")
    }

    /// Intents per run: enough that their outcomes reach the reader over several reads, or the
    /// sustained rate has nothing to measure. The worker takes each burst of pre-loaded intents in
    /// one go and its outcomes arrive together: a CI run of 4,000 read them all at once.
    private static let intents = "20000"

    /// `pushline-dev bench e2e` run small (2,000 h2load requests, a one-second half load) with
    /// `arguments`: it must succeed; its output's lines, and the whole of it for failure messages.
    /// Killed with the processes it started after 240 s, before the thread is given up on.
    private static func benchE2E(_ arguments: String...) async throws -> (lines: [String], output: String) {
        let result = try await DedicatedThread.run(timeout: .seconds(250)) {
            try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"),
                                    ["bench", "e2e", "--h2load-requests", "2000", "--half-load-seconds", "1"] + arguments,
                                    timeLimit: .seconds(240))
        }
        #expect(result.status == 0, "\(result.standardError.suffix(3000))")
        return (result.standardOutput.split(separator: "\n").map(String.init), result.standardOutput)
    }

    @Test("more workers than partitions is a usage error that names both")
    func moreWorkersThanPartitions() throws {
        let result = try pushlineDev("bench", "e2e", "--workers", "1,5", "--partitions", "4")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--workers 5: more workers than --partitions 4"), "\(result.standardError)")
    }

    @Test("an unknown deployment is a usage error that lists the deployments")
    func unknownDeployment() throws {
        let result = try pushlineDev("bench", "e2e", "--redis", "sentinel")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--redis: unknown deployment \"sentinel\"; deployments: single, cluster, cluster-replicas"), "\(result.standardError)")
    }
}
