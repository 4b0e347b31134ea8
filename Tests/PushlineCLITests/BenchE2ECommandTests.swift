import PushlineTestKit
import Testing

@Suite("pushline-dev bench e2e", .timeLimit(.minutes(5)))
struct BenchE2ECommandTests {
    @Test("--help names the workloads and exits 0")
    func help() throws {
        let result = try pushlineDev("bench", "e2e", "--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: pushline-dev bench e2e"))
        #expect(result.standardOutput.contains("mixed") && result.standardOutput.contains("users"))
    }

    @Test("the mixed workload beside tokens: every delivery ends with its expected outcome (accepted, suppressed copies, invalid), side by side, with the read-back p99 of each status and the wait from completed_at to read back")
    func mixedBesideTokens() async throws {
        let result = try await benchE2E(["--workloads", "tokens,mixed", "--intents", "20000", "--h2load-requests", "2000",
                                         "--half-load-seconds", "1"])
        #expect(result.status == 0, "\(result.standardError.suffix(3000))")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        // 20,000 mixed intents: 200 invalid, 600 copies, and user intents with 1–4 devices each.
        #expect(lines.contains("[tokens] outcomes: accepted 20000; complete (every delivery has its expected outcome)"), "\(result.standardOutput)")
        let mixed = try #require(lines.first { $0.hasPrefix("[mixed] outcomes: ") }, "\(result.standardOutput)")
        #expect(mixed.contains("invalid 200, suppressed ") && mixed.hasSuffix("complete (every delivery has its expected outcome)"), "\(mixed)")
        #expect(lines.contains { $0.hasPrefix("workload ") && $0.contains("p99 read back") })
        #expect(lines.contains { $0.hasPrefix("[mixed]   completed_at → read back:  p50 ") })
        let byStatus = try #require(lines.first { $0.hasPrefix("[mixed]   read back by status: ") }, "\(result.standardOutput)")
        #expect(byStatus.contains("accepted p99 ") && byStatus.contains("invalid p99 ") && byStatus.contains("suppressed p99 "), "\(byStatus)")
        #expect(!lines.contains { $0.hasPrefix("[tokens]   read back by status: ") }, "one status: no line of its own")
        #expect(lines.contains { $0.hasPrefix("worker CPU per outcome, mixed / tokens: ") })
        #expect(result.standardError.contains("mixed: registering 50000 users'"))
    }

    @Test("the lanes workload in two rounds: every intent ends accepted, each round prints its backlog / idle p99 ratio, and the summary takes their median")
    func lanesInRounds() async throws {
        let result = try await benchE2E(["--workloads", "lanes", "--intents", "20000", "--h2load-requests", "2000",
                                         "--half-load-seconds", "1", "--rounds", "2"])
        #expect(result.status == 0, "\(result.standardError.suffix(3000))")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        // 200 transactional intents (200/s for 1 s) idle, as many beside the backlog, and the backlog (the warm-up intent not counted).
        #expect(lines.filter { $0 == "[lanes] outcomes: accepted 20400" }.count == 2, "\(result.standardOutput)")
        // `[lanes] p99 created_at → completed_at, backlog / idle: 38.0 / 29.0 ms = 1.31 — goal ≤ 2.0: met`
        let prefix = "[lanes] p99 created_at → completed_at, backlog / idle: "
        let ratios = lines.filter { $0.hasPrefix(prefix) }.compactMap { line in
            line.split(separator: "=").last.flatMap { Double($0.split(separator: " ").first ?? "") }
        }
        #expect(ratios.count == 2, "\(result.standardOutput)")
        guard ratios.count == 2 else { return }
        let summaryPrefix = "over 2 rounds, [lanes] p99 created_at → completed_at, backlog / idle: median "
        let summary = try #require(lines.first { $0.hasPrefix(summaryPrefix) }, "\(result.standardOutput)")
        let median = try #require(Double(summary.dropFirst(summaryPrefix.count).prefix { $0 != " " }), "\(summary)")
        // Each round's ratio is printed to 0.01, their median (the mean of two) too.
        #expect(abs(median - (ratios[0] + ratios[1]) / 2) <= 0.011, "\(summary), rounds \(ratios)")
        // Rounded to 0.01, a ratio next to the goal cannot say on which side it fell.
        guard ratios.allSatisfy({ abs($0 - 2) > 0.01 }) else { return }
        let meeting = ratios.filter { $0 <= 2 }.count
        #expect(summary.contains("; goal ≤ 2.0 in \(meeting) of 2 rounds — " + (meeting == 2 ? "met" : "not met")), "\(summary)")
    }

    @Test("intents beyond what the mock broker keeps of a partition end the run with an error that says so, before any worker starts")
    func intentsTheMockBrokerDeletes() async throws {
        // One partition and 200,000 token intents: more than its newest 5 MB.
        let result = try await benchE2E(["--workloads", "tokens", "--intents", "200000", "--partitions", "1", "--h2load-requests", "1000"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("partition 0 of pushline.intents kept only offsets "), "\(result.standardError.suffix(2000))")
        #expect(result.standardError.contains("give fewer --intents or more --partitions"))
        #expect(!result.standardError.contains("starting 1 pushline run"))
    }

    @Test("an unknown workload is a usage error that lists the workloads")
    func unknownWorkload() throws {
        let result = try pushlineDev("bench", "e2e", "--workloads", "tokens,everything")
        #expect(result.status == 2)
        #expect(result.standardError.contains("unknown workload \"everything\"; workloads: tokens, sealed, unsealed, users, mixed"))
    }

    @Test("a --kafka-property without KEY=VALUE is a usage error that names the option and the value")
    func malformedKafkaProperty() throws {
        let result = try pushlineDev("bench", "e2e", "--kafka-property", "fetch.wait.max.ms")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--kafka-property must be KEY=VALUE, got \"fetch.wait.max.ms\""), "\(result.standardError)")
    }

    @Test("--policies is off, on or both; anything else is a usage error that says so")
    func unknownPoliciesMode() throws {
        let result = try pushlineDev("bench", "e2e", "--policies", "some")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--policies is off, on or both, got \"some\""), "\(result.standardError)")
    }
}

/// The `deferred` workload waits for its quiet-hours window to end (2 to 3 minutes): a suite of its own.
@Suite("pushline-dev bench e2e: the deferred release", .timeLimit(.minutes(7)))
struct BenchE2EDeferredTests {
    @Test("deferred beside tokens: every delivery deferred, then released and accepted; the release / e2e rate raw, and speed-adjusted by the two runs' server µs per outcome")
    func deferredBesideTokens() async throws {
        let result = try await benchE2E(["--workloads", "tokens,deferred", "--intents", "2000", "--h2load-requests", "2000",
                                         "--half-load-seconds", "1"], limit: .seconds(360))
        // Exit 0 only when all 2,000 were deferred first, then released and accepted (the bench checks both).
        #expect(result.status == 0, "\(result.standardError.suffix(3000))")
        let output = result.standardOutput
        let lines = output.split(separator: "\n").map(String.init)
        // `… pushline run 1 50.3 µs, apns-sim 14.1 µs, redis-server :… `: the server's µs per outcome, as printed.
        func serverMicroseconds(_ prefix: String) throws -> String {
            let line = try #require(lines.first { $0.hasPrefix(prefix) }, "\(output)")
            let after = try #require(line.range(of: ", apns-sim "), "\(line)")
            return String(line[after.upperBound...].prefix { $0 != " " })
        }
        let tokensServer = try serverMicroseconds("[tokens] CPU per outcome, worker start to last outcome: ")
        let releaseServer = try serverMicroseconds("[deferred] CPU per released delivery: ")
        // `[deferred] release / e2e (tokens, policies off) rate: 14203 / 14231 = 1.00 — goal ≥ 0.8: met`
        let raw = try #require(lines.first { $0.hasPrefix("[deferred] release / e2e (tokens, policies off) rate: ") }, "\(output)")
        let rates = raw.split(separator: ":")[1].prefix { $0 != "—" }.split(separator: " ").compactMap { Double($0) }
        try #require(rates.count == 3, "\(raw)")
        // `[deferred] release / e2e rate, speed-adjusted: 0.81 (server µs per outcome 17.8 / 21.8) — goal ≥ 0.8: met`
        let prefix = "[deferred] release / e2e rate, speed-adjusted: "
        let line = try #require(lines.first { $0.hasPrefix(prefix) }, "\(output)")
        #expect(line.contains("(server µs per outcome \(releaseServer) / \(tokensServer))"), "\(line)\n\(output)")
        let adjusted = try #require(Double(line.dropFirst(prefix.count).prefix { $0 != " " }), "\(line)")
        let (release, tokens) = (try #require(Double(releaseServer)), try #require(Double(tokensServer)))
        // The µs are printed to 0.1, the ratio to 0.01.
        let expected = rates[0] / rates[1] * release / tokens
        #expect(abs(adjusted - expected) <= 0.006 + expected * (0.05 / release + 0.05 / tokens), "printed \(adjusted), from the lines \(expected)")
        if abs(adjusted - 0.8) > 0.005 {
            #expect(line.hasSuffix("— goal ≥ 0.8: " + (adjusted >= 0.8 ? "met" : "NOT met")), "\(line)")
        }
    }
}
