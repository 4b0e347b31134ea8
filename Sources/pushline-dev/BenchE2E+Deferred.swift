import Foundation
import LocalStack
import Runtime

/// The `deferred` workload of `pushline-dev bench e2e` (issue 17): N token-addressed intents
/// pre-loaded while the pipeline's quiet hours hold (a window from a minute before now to
/// `windowMinutes` after it, UTC, on the system's clock: `pushline run` cannot be handed another),
/// all deferred; then, once the window ends, the rate at which all of them are released and sent,
/// with their outcomes, read back from Kafka like the sustained rate of the other workloads.
extension BenchE2ECommand {
    /// How many minutes past the current one the window ends: deferring must be done by then.
    static let deferredWindowMinutes = 3

    /// What the `deferred` workload measured.
    struct DeferredResult {
        var deferral: OutcomeReader.Throughput
        var release: OutcomeReader.Throughput
        /// The window's end to the first released outcome read back, seconds.
        var firstReleaseAfter: Double
        var cpu: CPUPerDelivery
        var cpuMicroseconds: [Double?]
    }

    static func measureDeferred(_ settings: Settings, bench: BenchServer) throws -> DeferredResult {
        let deliveries = settings.intents * settings.tokens
        progress("deferred: starting mock Kafka and redis-server")
        let stack = try BenchE2EStack(partitions: settings.partitions)
        defer { stack.redis.stop() }
        let load = try IntentLoad(bootstrapServers: stack.cluster.bootstrapServers, topic: LocalPipeline.intentsTopic, workload: .tokens,
                                  tokensPerIntent: settings.tokens, tokenPool: bench.tokenPool)
        let now = WallClock.millisecondsSinceEpoch()
        let minute = Int(now / 60_000 % 1_440)
        let windowEnd = (now / 60_000 + Int64(deferredWindowMinutes)) * 60_000
        var configuration = try stack.workerConfiguration(settings, server: bench)
        configuration.policies = ["  quiet_hours:", "    start: \"\(timeOfDay(minute - 1))\"",
                                  "    end: \"\(timeOfDay(minute + deferredWindowMinutes))\""]
        try load.preloadBeforeWorkers(0..<settings.intents) { progress("deferred: \($0)") }
        progress("deferred: starting pushline run (quiet hours \(timeOfDay(minute - 1))–\(timeOfDay(minute + deferredWindowMinutes)) UTC)")
        let reader = try OutcomeReader(bootstrapServers: stack.cluster.bootstrapServers, topic: "pushline.outcomes")
        let worker = try ServerProcess(try RepositoryPaths.builtExecutable("pushline"), ["run", "--config", try configuration.write()])
        reader.workers = [worker]
        let deferral = try reader.count(deliveries) { progress("deferred: deferring: \($0)") }
        guard deferral.byStatus == ["deferred": deliveries] else {
            throw LocalStackError("deferred: the outcomes before the window's end were \(deferral.byStatus), not \(deliveries) deferred: "
                + "give fewer --intents (the window ends \(deferredWindowMinutes) minutes after the run starts)")
        }
        let wait = windowEnd - WallClock.millisecondsSinceEpoch()
        progress("deferred: \(deliveries) deferred at \(Int(deferral.rate))/s; the window ends in \(max(0, wait) / 1000) s")
        if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1000) }
        // Releases begin within a second of the window's end: a bench that wakes later would count
        // outcomes already made, and print a rate far above the pipeline's (seen once, 12 s late).
        let late = WallClock.millisecondsSinceEpoch() - windowEnd
        guard late < 1_000 else {
            throw LocalStackError(wait <= 0
                ? "deferred: deferring ended \(late) ms after the window's end, so the release was under way before the bench began counting: give fewer --intents"
                : "deferred: this bench woke \(late) ms after the window's end, so the release was under way before it began counting: run it again")
        }
        let cpu = CPUPerDelivery(BenchE2EScale.processes(workers: [worker], server: (bench.name, bench.process.processID), redis: stack.redis)
                                 + [("this process (mock Kafka, reader)", getpid())])
        let release = try reader.count(deliveries) { progress("deferred: released: \($0)") }
        let cpuMicroseconds = cpu.microseconds(deliveries: deliveries)
        let stopStatus = worker.stop(graceMilliseconds: 60_000)
        try reader.close()
        try load.close()
        guard stopStatus == 0 else { throw LocalStackError("pushline run exited \(stopStatus) on SIGTERM: \(worker.log.suffix(2000))") }
        guard release.byStatus == ["accepted": deliveries] else {
            throw LocalStackError("deferred: the released deliveries' outcomes were \(release.byStatus), not \(deliveries) accepted")
        }
        let firstReleaseAfter = release.first.map { first in
            Double(WallClock.millisecondsSinceEpoch() - windowEnd) / 1000 - (first.duration(to: MonotonicClock.now) / .seconds(1))
        } ?? 0
        return DeferredResult(deferral: deferral, release: release, firstReleaseAfter: firstReleaseAfter, cpu: cpu, cpuMicroseconds: cpuMicroseconds)
    }

    /// Prints the `deferred` workload's figures, and the ratio of its release rate to the `tokens`
    /// workload's sustained rate with the policies off, when that ran in the same invocation (the
    /// last such run, the nearest in time; goal ≥ 0.8):
    /// raw, then speed-adjusted by the server's CPU per delivery (``SpeedMeter/server``: the released
    /// deliveries are the `tokens` intents' requests, and the two phases run minutes apart).
    static func printDeferred(_ result: DeferredResult, settings: Settings, tokens: BenchE2EResult?) {
        let deliveries = settings.intents * settings.tokens
        print("[deferred] pushline run with quiet hours, \(deliveries) deliveries (\(settings.intents) intents × \(settings.tokens) tokens), "
            + "\(settings.partitions) intent partitions")
        print(String(format: "[deferred] deferred: %.0f outcomes/s; released: %.0f outcomes/s (all %d accepted), first release outcome %.1f s "
            + "after the window's end", result.deferral.rate, result.release.rate, deliveries, result.firstReleaseAfter))
        print("[deferred] CPU per released delivery: " + result.cpu.summary(result.cpuMicroseconds, rate: result.release.rate))
        guard let tokens, tokens.sustained.rate > 0 else {
            print("[deferred] release / e2e rate: not judged (run --workloads tokens,deferred for the e2e rate of the same run)")
            return
        }
        let ratio = result.release.rate / tokens.sustained.rate
        print(String(format: "[deferred] release / e2e (tokens, policies off) rate: %.0f / %.0f = %.2f — goal ≥ %.1f: %@", result.release.rate,
                     tokens.sustained.rate, ratio, releaseRateGoal, ratio >= releaseRateGoal ? "met" : "NOT met"))
        // The release's CPU figures list the worker first, then the server (``BenchE2EScale/processes``).
        guard let releaseServer = result.cpuMicroseconds.dropFirst().first ?? nil, let tokensServer = tokens.serverMicroseconds,
              tokensServer > 0 else { return }
        let adjusted = ratio * releaseServer / tokensServer
        print(String(format: "[deferred] release / e2e rate, speed-adjusted: %.2f (server µs per outcome %.1f / %.1f) — goal ≥ %.1f: %@",
                     adjusted, releaseServer, tokensServer, releaseRateGoal, adjusted >= releaseRateGoal ? "met" : "NOT met"))
    }

    /// The release's rate over the e2e rate: at least this (issue 17).
    static let releaseRateGoal = 0.8

    /// `HH:MM` of a minute of the day (wrapping around midnight either way).
    private static func timeOfDay(_ minutes: Int) -> String {
        let wrapped = (minutes % 1_440 + 1_440) % 1_440
        return String(format: "%02d:%02d", wrapped / 60, wrapped % 60)
    }
}
