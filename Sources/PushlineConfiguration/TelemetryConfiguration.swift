import Telemetry

/// Where metrics are served and how much is logged.
public struct TelemetryConfiguration: Sendable, CustomStringConvertible {
    /// The IP address `/metrics`, `/healthz` and `/readyz` listen on. Every IPv4 address by default:
    /// Prometheus and an orchestrator's readiness probe reach a worker from another host or
    /// through the pod's address, which a loopback-only default would refuse (docs/configuration.md).
    public var bind = "0.0.0.0"
    /// The port of `/metrics`, `/healthz` and `/readyz`.
    public var metricsPort = 9464
    /// The least severe level that is logged.
    public var logLevel = Logger.Level.info

    public init() {}

    public var description: String {
        let host = bind.contains(":") ? "[\(bind)]" : bind
        return "metrics on \(host):\(metricsPort), log level \(logLevel.rawValue)"
    }

    /// Reads the `telemetry` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        if let address = section.value("bind", .ipAddress) { bind = address }
        if let port = section.value("metrics_port", .integer(1...65_535)) { metricsPort = port }
        if let level = section.value("log_level", ConfigurationValueType<Logger.Level>.choice()) { logLevel = level }
        section.finish()
    }
}
