import Telemetry

/// Where metrics are served and how much is logged.
public struct TelemetryConfiguration: Sendable, CustomStringConvertible {
    /// The port of `/metrics`, `/healthz` and `/readyz`.
    public var metricsPort = 9464
    /// The least severe level that is logged.
    public var logLevel = Logger.Level.info

    public init() {}

    public var description: String { "metrics on port \(metricsPort), log level \(logLevel.rawValue)" }

    /// Reads the `telemetry` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        if let port = section.value("metrics_port", .integer(1...65_535)) { metricsPort = port }
        if let level = section.value("log_level", ConfigurationValueType<Logger.Level>.choice()) { logLevel = level }
        section.finish()
    }
}
