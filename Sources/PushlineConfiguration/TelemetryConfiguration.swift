/// Where metrics are served and how much is logged.
public struct TelemetryConfiguration: Sendable, CustomStringConvertible {
    /// swift-log's levels, most verbose first.
    public enum LogLevel: String, Sendable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// The port of `/metrics`, `/healthz` and `/readyz`.
    public var metricsPort = 9464
    public var logLevel = LogLevel.info

    public init() {}

    public var description: String { "metrics on port \(metricsPort), log level \(logLevel.rawValue)" }

    /// Reads the `telemetry` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        if let port = section.value("metrics_port", .integer(1...65_535)) { metricsPort = port }
        let levels = KeyValuePairs(dictionaryLiteral: ("trace", LogLevel.trace), ("debug", .debug), ("info", .info), ("notice", .notice),
                                   ("warning", .warning), ("error", .error), ("critical", .critical))
        if let level = section.value("log_level", .choice(levels)) { logLevel = level }
        section.finish()
    }
}
