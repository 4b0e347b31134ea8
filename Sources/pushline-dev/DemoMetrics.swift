import Telemetry

/// The figures `pushline-dev demo` prints at the end, read from the worker's metrics registry through
/// its Prometheus exposition (the text `/metrics` serves): deliveries by status and the APNs
/// request latency. Only the demo's own families are read; their label values hold no `,` or `}`.
struct DemoMetrics {
    /// `pushline_deliveries_total`, summed over pipelines and reasons, by status.
    private(set) var deliveriesByStatus: [String: Int64] = [:]
    /// `pushline_apns_latency_seconds_count`, over every pool and outcome.
    private(set) var apnsRequests: Int64 = 0
    /// `pushline_apns_latency_seconds_sum`, in seconds.
    private(set) var apnsLatencySum: Double = 0
    /// `pushline_apns_latency_seconds_bucket`: cumulative requests by upper bound (`le`, seconds).
    private var apnsLatencyBuckets: [Double: Int64] = [:]

    init(registry: MetricsRegistry) {
        var exposition: [UInt8] = []
        registry.emit(into: &exposition)
        for line in String(decoding: exposition, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let name = series.prefix { $0 != "{" }
            let labels = Self.labels(series.dropFirst(name.count))
            switch name {
            case "pushline_deliveries_total": deliveriesByStatus[labels["status"] ?? "?", default: 0] += Int64(value)
            case "pushline_apns_latency_seconds_count": apnsRequests += Int64(value)
            case "pushline_apns_latency_seconds_sum": apnsLatencySum += value
            case "pushline_apns_latency_seconds_bucket":
                guard let bound = labels["le"].flatMap(Self.bound) else { continue }
                apnsLatencyBuckets[bound, default: 0] += Int64(value)
            default: continue
            }
        }
    }

    /// The smallest bucket bound (seconds) under which at least half the APNs requests were
    /// answered: the median is at most this; nil without requests.
    var apnsLatencyMedianBound: Double? {
        guard apnsRequests > 0 else { return nil }
        return apnsLatencyBuckets.keys.sorted().first { (apnsLatencyBuckets[$0] ?? 0) * 2 >= apnsRequests }
    }

    /// `{a="x",b="y"}` as a dictionary.
    private static func labels(_ text: Substring) -> [String: String] {
        var labels: [String: String] = [:]
        for pair in text.dropFirst().dropLast().split(separator: ",") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            labels[String(pair[..<equals])] = String(pair[pair.index(after: equals)...].dropFirst().dropLast())
        }
        return labels
    }

    /// A bucket's `le`: a number or `+Inf`.
    private static func bound(_ text: String) -> Double? {
        text == "+Inf" ? .infinity : Double(text)
    }
}
