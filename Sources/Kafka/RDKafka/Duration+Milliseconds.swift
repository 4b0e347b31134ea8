extension Duration {
    /// Whole milliseconds, rounded down: the unit of librdkafka's timeouts and intervals.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds as librdkafka's `int` timeouts take them, clamped to `Int32`.
    var timeoutMilliseconds: Int32 {
        Int32(clamping: max(0, wholeMilliseconds))
    }
}
