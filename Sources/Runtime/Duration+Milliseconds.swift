extension Duration {
    /// Whole milliseconds, rounded down: the unit of the settings and timeouts handed to C libraries,
    /// Kafka and Redis. The project's one conversion from `Duration` to milliseconds.
    public var wholeMilliseconds: Int {
        Int(wholeNanoseconds / 1_000_000)
    }

    /// Milliseconds as C libraries' `int` timeouts take them (librdkafka, `poll`), clamped to `Int32`.
    public var timeoutMilliseconds: Int32 {
        Int32(clamping: max(0, wholeMilliseconds))
    }

    /// The duration in seconds, as a `Double` for rates and reports.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Whole nanoseconds, rounded toward zero, saturating at `Int64`'s range.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowAgain ? (seconds < 0 ? .min : .max) : total
    }
}
