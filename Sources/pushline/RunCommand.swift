import APNsClient
import APNsTelemetry
import CLI
import Enrichment
import Foundation
import Pipeline
import PushlineConfiguration
import Runtime
import Synchronization
import Telemetry
import Worker

/// `pushline run`: one worker per pipeline of a configuration, with metrics, health and JSON logs,
/// until SIGINT or SIGTERM, or until a worker fails.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "run the configuration's pipelines: Kafka intents to APNs, outcomes back to Kafka"
    static let help = """
        Usage: pushline run --config FILE [--pipelines DIR]

        Loads the worker settings and pipelines (as `pushline validate config` checks them) and runs
        one worker per pipeline: intents from its source topic, notifications through its APNs pool,
        outcomes, token events and dead letters to its output topics (docs/worker.md). A pool whose
        environment is `production` or `sandbox` serves intents for that environment; a pool at a
        host:port (a simulator) serves both. Each pipeline's `batch` (size, linger), `concurrency`,
        `max_in_flight`, `redis_unreachable` and `dedupe` settings apply. With `tokens.enabled`, it
        also runs the token feed: `pushline.tokens` records into the token registry (docs/tokens.md).

        Serves /metrics, /healthz and /readyz on `telemetry.bind` (default 0.0.0.0: every IPv4
        address) and `telemetry.metrics_port`; /readyz is 200 once every worker has joined its group
        and none is stopping, waiting for Redis, cut off from Kafka (no broker up), or sending to an
        APNs pool whose circuit is open or that cannot connect, and the token feed, when enabled,
        has joined its group and reaches Redis (docs/operations.md).
        Logs JSON lines to standard error at `telemetry.log_level` (docs/telemetry.md).

        Templates and strings are reloaded when a file under a pipeline's `templates` or `locales`
        directory changes, and on SIGHUP; a file that does not load is rejected (logged with its
        file, line and key) and the catalog in force stays (docs/templates.md#reload).

        SIGINT or SIGTERM: every worker stops fetching, finishes its in-flight work within
        `shutdown.deadline`, hands back what is unfinished, flushes its outputs, commits its offsets
        and closes; exit 0. Exit 1 when the configuration is invalid, the metrics port cannot be
        served, or a worker or the token feed fails (at once, without waiting for a signal), also
        when stopping could not flush or commit within the deadline (Kafka down). Exit 3 when
        stopping is still under way 10 s after `shutdown.deadline`.

        Options:
          --config FILE     the worker settings, e.g. Config/pushline.yaml
          --pipelines DIR   the pipeline definitions (default: the file's `pipelines` setting)
          -h, --help        show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--config", "--pipelines"])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let signals = TerminationSignals(hangUp: true)
        let configuration: PushlineConfiguration
        do {
            configuration = try PushlineConfiguration.load(
                file: try arguments.required("--config"), pipelinesDirectory: arguments.optional("--pipelines"),
                environment: ProcessInfo.processInfo.environment)
        } catch let error as InvalidConfiguration {
            for problem in error.errors { printNote("\(problem)") }
            return 1
        }
        let keyEncryptionKey: KeyEncryptionKey?
        do {
            keyEncryptionKey = try configuration.encryption.loadKeyEncryptionKey()
        } catch {
            printNote("encryption: \(error)")
            return 1
        }
        let logger = Logger(label: "pushline.run") { JSONLogHandler(label: $0, logLevel: configuration.telemetry.logLevel) }
        let registry = MetricsRegistry()
        let telemetry = WorkerTelemetry(registry: registry,
                                        logger: Logger(label: "pushline.worker") { JSONLogHandler(label: $0, logLevel: configuration.telemetry.logLevel) })
        var senders: [APNsSender] = []
        // However `run` ends — stopped, or failing at start while a sender connects — its loop
        // stops before the process exits.
        defer { for sender in senders { sender.shutdown() } }
        var workers: [Worker] = []
        var catalogs: [(pipeline: String, store: CatalogStore)] = []
        for pipeline in configuration.pipelines {
            // `load` checked that the pool and its credentials exist.
            guard let pool = configuration.apns.pools.first(where: { $0.name == pipeline.apnsPool }),
                  let credentials = configuration.apns.credentials[pool.credentials] else { continue }
            var senderConfiguration = configuration.apns.senderConfiguration(for: pool, maximumHold: pipeline.maximumHold)
            // A stream APNs may have taken without answering: resent, or `unknown` (docs/worker.md).
            senderConfiguration.onUncertain = pipeline.dedupe.onUncertain
            let recorder = try SenderMetricsRecorder(registry: registry, logger: logger)
            let sender = try APNsSender(configuration: senderConfiguration, metrics: recorder)
            senders.append(sender)
            try sender.addPool(named: pool.name, credentials: apnsCredentials(credentials), environment: pool.environment)
            recorder.registerPool(named: pool.name)
            let catalog = try CatalogStore(templatesDirectory: pipeline.templatesDirectory, localesDirectory: pipeline.localesDirectory)
            catalogs.append((pipeline.name, catalog))
            var worker = WorkerConfiguration(pipeline: pipeline, pool: pool, settings: configuration)
            worker.keyEncryptionKey = keyEncryptionKey
            workers.append(try Worker(configuration: worker, catalog: catalog,
                                      sender: sender, telemetry: telemetry))
        }
        // Templates and strings reloaded on a file change or SIGHUP (docs/templates.md#reload).
        let reloaders = try catalogs.map { try CatalogReloading.start(store: $0.store, pipeline: $0.pipeline, telemetry: telemetry) }
        // The first of: a termination signal, a worker or the token feed failing.
        let ended = Semaphore()
        let cause = Mutex<String?>(nil)
        let tokenFeed = try startTokenFeed(configuration, keyEncryptionKey: keyEncryptionKey, logger: logger, registry: registry) { error in
            cause.withLock { $0 = $0 ?? "token feed failed: \(error)" }
            ended.signal()
        }
        let readiness = workers
        let server: TelemetryServer
        do {
            server = try TelemetryServer(registry: registry, address: configuration.telemetry.bind,
                                         port: UInt16(configuration.telemetry.metricsPort)) {
                readiness.allSatisfy(\.isReady) && tokenFeed?.isReady ?? true
            }
        } catch {
            printNote("cannot serve metrics (telemetry.bind, telemetry.metrics_port): \(error)")
            _ = stopTokenFeed(tokenFeed)
            return 1
        }
        for worker in workers {
            worker.start { error in
                cause.withLock { $0 = $0 ?? "worker failed: \(error)" }
                ended.signal()
            }
        }
        ServiceThread().start(name: "pushline-signals") {
            let signal = signals.wait { reloaders.forEach { $0.reload() } }
            cause.withLock { $0 = $0 ?? "signal \(signal)" }
            ended.signal()
        }
        logger.info("running", metadata: ["pipelines": .string(configuration.pipelines.map(\.name).joined(separator: ",")),
                                          "metrics_bind": .string(configuration.telemetry.bind), "metrics_port": .string("\(server.port)")])
        ended.wait()
        let reason = cause.withLock { $0 } ?? ""
        logger.info("stopping", metadata: ["cause": .string(reason)])
        stopWithin(configuration.shutdown.deadline + shutdownGrace, logger: logger)
        reloaders.forEach { $0.cancel() }
        var status: Int32 = 0
        for worker in workers {
            do {
                try worker.stop()
            } catch {
                printNote("a worker stopped on an error: \(error)")
                status = 1
            }
        }
        status = max(status, stopTokenFeed(tokenFeed))
        server.stop()
        return status
    }

    /// How long after `shutdown.deadline` a stop that is still under way is cut short (exit 3):
    /// the workers bound their own drain, flush and close by the deadline (each close step gets at
    /// least 2 s); this covers what they cannot bound, such as a commit or a flush that librdkafka
    /// does not give up on while the brokers are down.
    static let shutdownGrace = Duration.seconds(10)

    /// Ends the process with status 3 if it is still running `limit` from now.
    private static func stopWithin(_ limit: Duration, logger: Logger) {
        ServiceThread().start(name: "pushline-stop-limit") {
            Thread.sleep(forTimeInterval: Double(limit.wholeMilliseconds) / 1000)
            logger.error("stopping took longer than shutdown.deadline allows; exiting", metadata: ["limit": "\(limit)"])
            // Not exit(): its atexit handlers would run while the workers' threads still use what they tear down.
            _exit(3)
        }
    }

    private static func apnsCredentials(_ credentials: APNsCredentialsConfiguration) -> APNsCredentials {
        switch credentials {
        case .token(let key): .token(ProviderTokenSource(credentials: key))
        case .certificate(let certificateFile, let privateKeyFile): .certificate(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        }
    }

    private static func printNote(_ message: String) {
        FileHandle.standardError.write(Data("pushline run: \(message)\n".utf8))
    }
}
