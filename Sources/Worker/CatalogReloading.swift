import Enrichment
import Runtime
import Telemetry

/// Hot reload of a pipeline's templates and strings (docs/templates.md#reload): a ``CatalogReloader``
/// on its ``CatalogStore`` whose every attempt is logged and counted. An applied reload logs
/// `catalog reloaded` (info); a rejected one logs `catalog reload rejected` (warning) with the
/// `file`, `line`, `setting` and `reason`, and the previous catalog stays in force. Metrics:
/// `pushline_catalog_reloads_total{pipeline,result="applied|rejected"}` and
/// `pushline_catalog_loaded_timestamp_seconds{pipeline}`, when the catalog in force was loaded.
public enum CatalogReloading {
    /// Starts watching `store`'s directories and reporting to `telemetry`; the caller keeps the
    /// reloader (``CatalogReloader/reload()`` on SIGHUP, ``CatalogReloader/cancel()`` on stop).
    /// - Throws: ``MetricsRegistryError`` when the registry holds a name of these metrics with
    ///   another type or labels; ``CatalogLoadError`` when inotify cannot be set up.
    public static func start(store: CatalogStore, pipeline: String, telemetry: WorkerTelemetry) throws -> CatalogReloader {
        let reloads = try telemetry.registry.makeCounterFamily(
            name: "pushline_catalog_reloads_total", labelNames: ["pipeline", "result"],
            help: "Reloads of the templates and strings: applied, or rejected (the previous catalog stays in force).")
        let applied = reloads.metric(labelValues: [pipeline, "applied"])
        let rejected = reloads.metric(labelValues: [pipeline, "rejected"])
        let loaded = try telemetry.registry.makeGauge(
            label: "pushline_catalog_loaded_timestamp_seconds", dimensions: [("pipeline", pipeline)],
            help: "When the templates and strings in force were loaded (Unix time).")
        loaded.set(to: WallClock.system.secondsSinceEpoch())
        let logger = telemetry.logger
        return try CatalogReloader(store: store) { attempt in
            var metadata: Logger.Metadata = ["pipeline": .string(pipeline), "trigger": .string(attempt.trigger.rawValue),
                                             "templates": .string(store.templatesDirectory), "locales": .string(store.localesDirectory)]
            switch attempt.result {
            case .success:
                applied.increment()
                loaded.set(to: WallClock.system.secondsSinceEpoch())
                logger.info("catalog reloaded", metadata: metadata)
            case .failure(let error):
                rejected.increment()
                metadata["code"] = .string(error.code.rawValue)
                metadata["file"] = .string(error.file)
                metadata["line"] = error.line.map { .string("\($0)") }
                metadata["setting"] = error.key.map { .string($0) }
                metadata["reason"] = .string(error.reason)
                metadata["error"] = .string(error.description)
                logger.warning("catalog reload rejected", metadata: metadata)
            }
        }
    }
}
