import APNsClient
import Enrichment
import Foundation
import Runtime
import Synchronization

/// Runs one pipeline on a thread of its own: poll intents, plan their deliveries, claim and send
/// them in overlapping batches, record one outcome per delivery, and mark a message complete only
/// once Kafka has acknowledged everything it produced, so offsets advance at the watermark
/// (docs/worker.md). Blocking clients (Kafka, Redis) stay on that thread; sends run on the sender.
///
/// ``stop()`` drains within ``WorkerConfiguration/shutdownDeadline``. An error the worker cannot
/// handle (Kafka refusing an output, a Redis error that is not an outage) ends it without
/// completing the work in hand, which a restart reads again; ``start(whenFailed:)``'s handler and
/// ``stop()`` report it.
public final class Worker: Sendable {
    private let configuration: WorkerConfiguration
    private let catalog: CatalogStore
    private let sender: APNsSender
    private let telemetry: WorkerTelemetry
    private let metrics: WorkerMetrics
    private let status = WorkerStatus()
    private let thread = ServiceThread()

    /// - Parameter catalog: the templates and strings; each intent is planned with the catalog in
    ///   force when its planning starts, so a reload (``CatalogReloader``) applies from the next intents.
    /// - Throws: ``MetricsRegistryError`` when the registry holds one of the worker's metric names
    ///   with another type or other labels.
    public init(configuration: WorkerConfiguration, catalog: CatalogStore, sender: APNsSender,
                telemetry: WorkerTelemetry = WorkerTelemetry()) throws {
        self.configuration = configuration
        self.catalog = catalog
        self.sender = sender
        self.telemetry = telemetry
        metrics = try WorkerMetrics(registry: telemetry.registry, pipeline: configuration.pipelineName,
                                    lanes: configuration.policies.lanes, throttles: configuration.policies.throttles)
    }

    /// Whether the worker has joined its consumer group and is neither stopping, stopped, waiting
    /// for Redis, cut off from Kafka (no broker up), nor sending to an APNs pool whose circuit is
    /// open or that cannot connect (`/readyz`).
    public var isReady: Bool { status.isReady }

    /// Starts the worker's thread; call once.
    /// - Parameter whenFailed: called on the worker's thread if the worker ends on an error.
    public func start(whenFailed: @escaping @Sendable (any Error) -> Void = { _ in }) {
        thread.start(name: "pushline-worker-\(configuration.pipelineName)", { [self] in
            defer { status.ended.store(true, ordering: .releasing) }
            try WorkerLoop(configuration: configuration, catalog: catalog, sender: sender, metrics: metrics,
                           logger: telemetry.logger, status: status).run()
        }, whenFailed: { [self] error in
            telemetry.logger.error("worker failed", metadata: ["pipeline": .string(configuration.pipelineName), "error": .string("\(error)")])
            whenFailed(error)
        })
    }

    /// Stops fetching, lets in-flight work finish within the shutdown deadline, hands the rest back,
    /// flushes, commits and closes; waits for all of it. Blocking: call it from a thread of its
    /// own, never from Swift's cooperative pool. Throws the error the worker ended on, if any.
    public func stop() throws {
        status.stopping.store(true, ordering: .releasing)
        try thread.join()
    }
}
