import Foundation
import LocalStack
import Runtime

/// The components of one row of `pushline-dev bench faults`, each a process of its own as the README's
/// local stack runs them: `pushline-dev dev-kafka` (3 brokers), a `redis-server`, `apns-sim` (admin API
/// for the faults, an inbox file for what devices received), and the supervised `pushline run`;
/// plus, in this process, the row's producer and the reader of its outputs.
final class BenchFaultsStack {
    static let pipelineName = "notifications"
    static let shutdownDeadlineSeconds = 10

    let kafka: DevKafkaProcess
    let redis: RedisServer
    let simulator: SimulatorProcess
    let traffic: BenchFaultsTraffic
    let ledger: BenchFaultsLedger
    let worker: BenchFaultsWorker
    let configurationFile: String
    /// How the row takes a broker down: `pushline-dev dev-kafka`'s command lines.
    var brokerControl: any BenchFaultsBrokerControl { kafka }

    /// Starts everything and the worker, whose pipeline is `notifications` (so its variables are
    /// `PUSHLINE_PIPELINES_NOTIFICATIONS_…`) with `environment` added to its own.
    init(kafkaProperties: [String: String], environment: [String: String]) throws {
        kafka = try DevKafkaProcess(pushlineDev: try RepositoryPaths.builtExecutable("pushline-dev"), topics: [(LocalPipeline.intentsTopic, 4)] + LocalPipeline.outputTopics.map { ($0, 1) })
        redis = try RedisServer()
        let inbox = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-faults-inbox-\(UUID().uuidString).jsonl").path
        simulator = try SimulatorProcess(executable: try RepositoryPaths.builtExecutable("apns-sim"), adminAPI: true, inboxFile: inbox)
        let configuration = try Self.configuration(bootstrapServers: kafka.bootstrapServers, redisPort: redis.port,
                                                   simulatorPort: simulator.devicePort, caFile: simulator.certificateFile,
                                                   kafkaProperties: kafkaProperties)
        configurationFile = try configuration.write()
        traffic = try BenchFaultsTraffic(bootstrapServers: kafka.bootstrapServers, topic: LocalPipeline.intentsTopic)
        ledger = try BenchFaultsLedger(bootstrapServers: kafka.bootstrapServers, outcomesTopic: "pushline.outcomes", dlqTopic: "pushline.dlq")
        worker = try BenchFaultsWorker(configurationFile: configurationFile, environment: environment)
        metricsPort = configuration.metricsPort ?? 0
    }

    /// The worker's `/metrics`, `/healthz` and `/readyz` port.
    let metricsPort: Int

    /// Waits until the worker's `/readyz` answers 200 (it joined its group and reaches Redis), so the
    /// row's clock starts with a working pipeline.
    func waitUntilReady(timeout: Duration = .seconds(60)) throws {
        let curl = try ExternalCommand.locate("curl", package: "curl")
        try Deadline.wait(timeout, for: "pushline run's /readyz to answer 200 (its log: \(worker.logFile))") {
            try worker.supervise()
            let status = try ExternalCommand.run(curl, ["--silent", "--output", "/dev/null", "--write-out", "%{http_code}",
                                                        "http://127.0.0.1:\(metricsPort)/readyz"]).standardOutput
            if status != "200" { Thread.sleep(forTimeInterval: 0.2) }
            return status == "200"
        }
    }

    /// The worker's configuration: pipeline `notifications` (so its variables are
    /// `PUSHLINE_PIPELINES_NOTIFICATIONS_…`), group `bench-faults`, `shutdown.deadline` 10 s.
    private static func configuration(bootstrapServers: String, redisPort: Int, simulatorPort: UInt16, caFile: String,
                                      kafkaProperties: [String: String]) throws -> LocalRunConfiguration {
        var configuration = LocalRunConfiguration(bootstrapServers: bootstrapServers, redisPort: redisPort,
                                                  simulatorPort: simulatorPort, caFile: caFile)
        configuration.pipelineName = pipelineName
        configuration.group = "bench-faults"
        configuration.kafkaProperties = kafkaProperties
        configuration.logLevel = "notice"
        configuration.metricsPort = try FreePort.next()
        configuration.shutdownDeadline = "\(shutdownDeadlineSeconds)s"
        return configuration
    }

    /// Waits `duration`, keeping the worker supervised.
    func hold(_ duration: Duration) throws {
        let end = MonotonicClock.now + duration
        while MonotonicClock.now < end {
            try worker.supervise()
            try ledger.check()
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Waits until every published intent has an outcome, or no outcome has arrived for `quiet`
    /// (at most `limit`), keeping the worker supervised.
    func waitUntilQuiet(_ quiet: Duration, limit: Duration = .seconds(900)) throws {
        let began = MonotonicClock.now
        let end = began + limit
        while MonotonicClock.now < end, ledger.withoutOutcome(traffic.published) > 0,
              max(began, ledger.lastArrival).duration(to: .now) < quiet {
            try hold(.milliseconds(500))
        }
    }

    /// Stops the worker (SIGTERM) and the reader, and counts everything; the components stop when
    /// the stack is released.
    func finish(_ result: inout BenchFaultsResult, faultEnd: MonotonicClock.Instant?) throws {
        let status = worker.stop()
        if status != 0 { result.details.append("the worker exited \(status) on the final SIGTERM") }
        try traffic.close()
        try ledger.close()
        let published = traffic.published
        let counts = ledger.counts
        let inbox = try simulator.inboxCounts()
        result.intents = published.count
        result.outcomes = counts.outcomes
        result.withoutOutcome = ledger.withoutOutcome(published)
        result.devicesTwice = inbox.values.count { $0 > 1 }
        result.extraNotifications = inbox.values.reduce(0) { $0 + max(0, $1 - 1) }
        result.deadLetters = counts.deadLetters
        result.byStatus = counts.byStatus
        result.workerExits = worker.unexpectedExits.count
        if let faultEnd {
            result.recoveryExpected = true
            result.recovery = ledger.firstAccepted(after: faultEnd).map { faultEnd.duration(to: $0) }
            if result.withoutOutcome == 0, let done = ledger.lastFirstOutcome {
                result.backlogDone = faultEnd.duration(to: max(faultEnd, done))
                result.details.append("backlog done \(BenchFaultsResult.seconds(result.backlogDone)) after the fault ended")
            }
        }
        if let last = worker.unexpectedExits.last {
            result.details.append("the worker exited by itself \(worker.unexpectedExits.count) time(s), statuses "
                + "\(worker.unexpectedExits.map(\.status)); the last log: \(last.log.split(separator: "\n").suffix(3).joined(separator: " | "))")
        }
    }

    func stop() {
        simulator.stop()
        redis.stop()
        kafka.stop()
    }
}
