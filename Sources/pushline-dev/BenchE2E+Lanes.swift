import APNsCore
import CLI
import Foundation
import Kafka
import LocalStack
import Runtime

/// The `lanes` workload of `pushline-dev bench e2e` (issue 17): `transactional` intents at a steady
/// rate, first on an idle pipeline, then while a backlog of `bulk` intents drains, and the p99 of
/// each from `created_at` to the outcome. The pipeline has the lanes `transactional` (weight 4) and
/// `bulk` (1), and bulk keeps to `apns.bulk.streams` 100 and to `lightest_batches` (1 unless
/// `--lightest-batches` says otherwise) batches while transactional sends; bulk intents go
/// to every intents partition but the last, transactional ones to the last (lanes by partition:
/// docs/policies.md says why a lane cannot overtake a backlog ahead of it in its own partition).
extension BenchE2ECommand {
    /// What the `lanes` workload measures.
    struct LanesSettings {
        /// Bulk intents pre-loaded as the backlog (`--intents`).
        var backlog: Int
        /// Transactional intents per second (`--transactional-rate`).
        var transactionalPerSecond: Int
        /// How long transactional intents are offered in each phase (`--half-load-seconds`).
        var seconds: Int
        /// The pipeline's `policies.lanes.read_ahead` (`--read-ahead`).
        var readAhead: Int
        /// The pipeline's `policies.lanes.lightest_batches` (`--lightest-batches`; nil: not set).
        var lightestBatches: Int?

        /// What the workload sets without `--lightest-batches` (docs/BENCHMARKS.md, "Lanes,
        /// thirteenth round", measured the curve).
        static let defaultLightestBatches = 1

        /// `--lightest-batches`: a count of 1–64, or `none`.
        static func lightestBatches(_ text: String?) throws(UsageError) -> Int? {
            guard let text else { return defaultLightestBatches }
            if text == "none" { return nil }
            guard let count = Int(text), (1...64).contains(count) else {
                throw UsageError(message: "--lightest-batches must be 1–64 or none, got \"\(text)\"")
            }
            return count
        }
    }

    /// Intents of the transactional lane are numbered from here, apart from the backlog's.
    private static let transactionalBase = 10_000_000
    /// The worker's `apns.bulk.streams`: bulk requests in flight while transactional sends.
    private static let bulkStreams = 100

    /// One run of the lanes workload, printed; its p99 ratio, backlog / idle, and whether it can be
    /// judged (a transactional intent was created while the backlog drained).
    static func measureLanes(_ settings: Settings, _ lanes: LanesSettings, bench: BenchServer) throws -> (ratio: Double, judged: Bool) {
        guard settings.partitions >= 2 else { throw UsageError(message: "the lanes workload needs --partitions 2 or more") }
        progress("lanes: starting mock Kafka and redis-server")
        let stack = try BenchE2EStack(partitions: settings.partitions)
        let cluster = stack.cluster
        defer { stack.redis.stop() }
        let transactionalPartition = Int32(settings.partitions - 1)
        let bulkLoad = try IntentLoad(bootstrapServers: cluster.bootstrapServers, topic: LocalPipeline.intentsTopic, workload: .tokens,
                                      tokensPerIntent: 1, tokenPool: bench.tokenPool, fields: #""lane":"bulk","#) { index in
            Int32(index % (settings.partitions - 1))
        }
        let transactionalLoad = try IntentLoad(bootstrapServers: cluster.bootstrapServers, topic: LocalPipeline.intentsTopic,
                                               workload: .tokens, tokensPerIntent: 1, tokenPool: bench.tokenPool,
                                               fields: #""lane":"transactional","#) { _ in transactionalPartition }
        var configuration = try stack.workerConfiguration(settings, server: bench)
        configuration.policies = ["  lanes:", "    default: bulk", "    read_ahead: \(lanes.readAhead)",
                                  "    weights:", "      transactional: 4", "      bulk: 1"]
            + (lanes.lightestBatches.map { ["    lightest_batches: \($0)"] } ?? [])
        configuration.bulkStreams = bulkStreams
        progress("lanes: starting pushline run")
        let reader = try OutcomeReader(bootstrapServers: cluster.bootstrapServers, topic: "pushline.outcomes")
        let worker = try ServerProcess(try RepositoryPaths.builtExecutable("pushline"), ["run", "--config", try configuration.write()])
        reader.workers = [worker]
        let offered = lanes.transactionalPerSecond * lanes.seconds
        // One intent first, so that the idle phase starts with the worker in its group and connected.
        progress("lanes: waiting for the worker's first outcome")
        try transactionalLoad.preload(transactionalBase - 1..<transactionalBase) { _ in }
        _ = try readLaneOutcomes(reader, 1) { progress("lanes: warm-up: \($0)") }

        progress("lanes: idle: \(offered) transactional intents at \(lanes.transactionalPerSecond)/s")
        let idleRange = transactionalBase..<transactionalBase + offered
        let idleProduction = BackgroundWork {
            try transactionalLoad.produceSteadily(idleRange, intentsPerSecond: Double(lanes.transactionalPerSecond)) { progress("lanes: idle: \($0)") }
        }
        let idle = try readLaneOutcomes(reader, offered) { progress("lanes: idle: \($0)") }
        try idleProduction.wait()

        progress("lanes: backlog: pre-loading \(lanes.backlog) bulk intents on partitions 0–\(settings.partitions - 2)")
        try bulkLoad.preload(0..<lanes.backlog) { progress("lanes: backlog: \($0)") }
        progress("lanes: backlog: \(offered) transactional intents at \(lanes.transactionalPerSecond)/s while it drains")
        let busyRange = idleRange.upperBound..<idleRange.upperBound + offered
        let busyProduction = BackgroundWork {
            try transactionalLoad.produceSteadily(busyRange, intentsPerSecond: Double(lanes.transactionalPerSecond)) { progress("lanes: backlog: \($0)") }
        }
        let busy = try readLaneOutcomes(reader, offered + lanes.backlog) { progress("lanes: backlog: \($0)") }
        try busyProduction.wait()
        let stopStatus = worker.stop(graceMilliseconds: 60_000)
        try reader.close()
        try bulkLoad.close()
        try transactionalLoad.close()
        guard stopStatus == 0 else { throw LocalStackError("pushline run exited \(stopStatus) on SIGTERM: \(worker.log.suffix(2000))") }
        return printLanes(idle: idle, busy: busy, settings: settings, lanes: lanes, serverName: bench.name)
    }

    /// One outcome of the lanes workload.
    private struct LaneOutcome {
        var transactional: Bool
        var status: String
        var createdAt: Double
        var completedAt: Double
        var readBackAt: Double
        /// The outcome's `latency_ms`: from the sender taking the delivery to APNs' answer.
        var atSender: Double
    }

    private static func readLaneOutcomes(_ reader: OutcomeReader, _ total: Int, progress: (String) -> Void) throws -> [LaneOutcome] {
        var outcomes: [LaneOutcome] = []
        outcomes.reserveCapacity(total)
        try reader.read(total) { batch, _ in
            let now = Double(WallClock.millisecondsSinceEpoch())
            for message in batch {
                guard let outcome = try? JSONParser.parse(message.value ?? []).objectValue,
                      let id = outcome["intent_id"]?.stringValue, let status = outcome["status"]?.stringValue,
                      let created = outcome["created_at"]?.numberValue, let completed = outcome["completed_at"]?.numberValue,
                      let atSender = outcome["latency_ms"]?.numberValue,
                      let number = Int(id.dropFirst("bench-".count)) else {
                    throw LocalStackError("an outcome without intent_id, status, created_at, completed_at or latency_ms: "
                        + String(decoding: message.value ?? [], as: UTF8.self))
                }
                outcomes.append(LaneOutcome(transactional: number >= transactionalBase, status: status, createdAt: created,
                                            completedAt: completed, readBackAt: now, atSender: atSender))
            }
        } progress: {
            progress("\(outcomes.count)/\(total) outcomes read back")
        }
        return outcomes
    }

    private static func printLanes(idle: [LaneOutcome], busy: [LaneOutcome], settings: Settings, lanes: LanesSettings,
                                   serverName: String) -> (ratio: Double, judged: Bool) {
        let bulk = busy.filter { !$0.transactional }
        let drainStart = bulk.map(\.completedAt).min() ?? 0
        let drainEnd = bulk.map(\.completedAt).max() ?? 0
        // Only transactional intents created while the backlog was still draining count.
        let during = busy.filter { $0.transactional && $0.createdAt <= drainEnd }
        let statuses = Dictionary(grouping: idle + busy, by: \.status).mapValues(\.count)
        func percentile(_ values: [Double], _ fraction: Double) -> Double { BenchE2EResult.percentile(values.sorted(), fraction) }
        print("[lanes] pushline run (batch.size \(settings.batchSize.map(String.init) ?? "500"), lanes transactional 4 / bulk 1, "
            + "read_ahead \(lanes.readAhead), lightest_batches \(lanes.lightestBatches.map(String.init) ?? "not set")) → \(serverName) process (TLS); mock Kafka (1 broker, \(settings.partitions) intent partitions: "
            + "bulk on 0–\(settings.partitions - 2), transactional on \(settings.partitions - 1)), redis-server; worker's kafka.properties "
            + "\(settings.kafkaProperties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
        print("[lanes] outcomes: \(statuses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        print(String(format: "[lanes] backlog: %d bulk intents drained in %.1f s (%.0f outcomes/s)", bulk.count, (drainEnd - drainStart) / 1000,
                     Double(bulk.count) / max(0.001, (drainEnd - drainStart) / 1000)))
        let idleP99 = percentile(idle.map { $0.completedAt - $0.createdAt }, 0.99)
        let busyP99 = percentile(during.map { $0.completedAt - $0.createdAt }, 0.99)
        for (name, sample) in [("idle", idle), ("backlog", during)] {
            let decided = sample.map { $0.completedAt - $0.createdAt }
            let readBack = sample.map { $0.readBackAt - $0.createdAt }
            print(String(format: "[lanes] %@: %d transactional at %d/s: created_at → completed_at p50 %.1f ms, p99 %.1f ms, max %.1f ms; "
                + "→ read back p50 %.1f ms, p99 %.1f ms", name, sample.count, lanes.transactionalPerSecond, percentile(decided, 0.5),
                percentile(decided, 0.99), decided.max() ?? 0, percentile(readBack, 0.5), percentile(readBack, 0.99)))
            // Where the time went: before the sender (Kafka, planning, the lanes, the claim) and at
            // the sender (its queue, the HTTP/2 stream and APNs' answer: the outcome's latency_ms).
            let beforeSender = sample.map { $0.completedAt - $0.createdAt - $0.atSender }
            let atSender = sample.map(\.atSender)
            print(String(format: "[lanes] %@: created_at → the sender p50 %.1f ms, p99 %.1f ms; at the sender (latency_ms) p50 %.1f ms, p99 %.1f ms",
                         name, percentile(beforeSender, 0.5), percentile(beforeSender, 0.99), percentile(atSender, 0.5),
                         percentile(atSender, 0.99)))
        }
        let ratio = busyP99 / max(idleP99, 0.001)
        print(String(format: "%@: %.1f / %.1f ms = %.2f — goal %@: %@", latencyRatioName, busyP99, idleP99,
                     ratio, latencyRatioGoal.text, during.isEmpty ? "not judged (no transactional intent was created while the backlog drained)"
                        : latencyRatioGoal.isMet(by: ratio) ? "met" : "NOT met"))
        return (ratio, !during.isEmpty)
    }

    /// Issue 17: the transactional lane's p99 under the bulk backlog, at most twice its idle p99.
    static let latencyRatioGoal = RatiosOverRounds.Goal.atMost(2)
    static let latencyRatioName = "[lanes] p99 created_at → completed_at, backlog / idle"
}
