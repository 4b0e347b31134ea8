/// Why a ``MetricsRegistry`` refused to make a metric.
public struct MetricsRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The machine-readable cause.
    public enum Code: String, Sendable, Equatable {
        /// The name breaks Pushline's Prometheus naming rules (see `docs/telemetry.md`).
        case invalidName
        /// A label name is not snake_case, is reserved (`__…`, `le` on histograms) or repeats.
        case invalidLabelName
        /// Histogram buckets must be finite and strictly ascending, and there must be at least one.
        case invalidBuckets
        /// The name is already registered with another type, other label names or other buckets.
        case conflictingRegistration
    }

    public let code: Code
    /// The metric name that was asked for.
    public let name: String
    /// Which rule was broken, in words.
    public let detail: String

    /// The refusal of `name` for `code`, explained by `detail`.
    public init(code: Code, name: String, detail: String) {
        self.code = code
        self.name = name
        self.detail = detail
    }

    public var description: String { "metric \(name): \(detail) (\(code.rawValue))" }
}
