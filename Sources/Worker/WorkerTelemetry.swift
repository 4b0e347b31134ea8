import Telemetry

/// Where a worker reports: the process's metrics registry (served by `TelemetryServer`) and its
/// logger (JSON lines).
public struct WorkerTelemetry: Sendable {
    public var registry: MetricsRegistry
    public var logger: Logger

    /// By default a registry of the worker's own and warnings and worse on standard error (an
    /// embedded worker, a test); `pushline run` passes the process's registry and configured level.
    public init(registry: MetricsRegistry = MetricsRegistry(), logger: Logger? = nil) {
        self.registry = registry
        self.logger = logger ?? {
            var logger = Logger(label: "pushline.worker")
            logger.logLevel = .warning
            return logger
        }()
    }
}
