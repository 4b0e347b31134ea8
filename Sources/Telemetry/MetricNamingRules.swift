/// Pushline's Prometheus naming conventions: Prometheus' own rules for names and labels, plus the
/// `pushline_` prefix, snake_case, `_total` on counters only, base units (seconds, bytes) and the
/// suffixes that histograms write reserved.
enum MetricNamingRules {
    static let prefix = "pushline_"
    private static let reservedSuffixes = ["_bucket", "_sum", "_count"]
    /// Unit words that have a base unit instead: seconds for durations, bytes for sizes, ratios for shares.
    private static let nonBaseUnits: Set<Substring> = [
        "nanoseconds", "microseconds", "milliseconds", "minutes", "hours", "days", "ns", "us", "ms",
        "kilobytes", "megabytes", "gigabytes", "kb", "mb", "gb", "bits", "percent",
    ]

    /// What is wrong with `name` for a metric of `kind`, or nil when it follows every rule.
    static func violation(ofName name: String, kind: MetricKind) -> String? {
        guard isSnakeCase(name) else { return "use snake_case: lowercase letters, digits and single underscores" }
        guard name.hasPrefix(prefix), name.count > prefix.count else { return "start with \(prefix)" }
        if kind == .counter, !name.hasSuffix("_total") { return "a counter's name ends in _total" }
        if kind != .counter, name.hasSuffix("_total") { return "only counters end in _total" }
        if let suffix = reservedSuffixes.first(where: name.hasSuffix) { return "\(suffix) is reserved for histogram samples" }
        if let unit = name.split(separator: "_").first(where: nonBaseUnits.contains) {
            return "\(unit) is not a base unit: use seconds, bytes or a ratio"
        }
        if kind == .timer, !name.hasSuffix("_seconds") { return "a timer's name ends in _seconds" }
        return nil
    }

    /// What is wrong with `labelNames` for a metric of `kind`, or nil when they follow every rule.
    static func violation(ofLabelNames labelNames: [String], kind: MetricKind) -> String? {
        for (index, label) in labelNames.enumerated() {
            guard isSnakeCase(label) else { return "label \(label): use snake_case" }
            if kind.hasBuckets, label == "le" { return "label le is reserved for histogram buckets" }
            if labelNames[..<index].contains(label) { return "label \(label) appears twice" }
        }
        return nil
    }

    /// Lowercase ASCII letters, digits and underscores, starting with a letter, no `__`, no trailing
    /// `_`; this also keeps out Prometheus' reserved `__` labels and recording-rule colons.
    private static func isSnakeCase(_ text: String) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
              text.utf8.last != UInt8(ascii: "_"), !text.contains("__") else { return false }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }
}
