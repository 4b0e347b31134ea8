extension Duration {
    /// Whole milliseconds, rounded down: the unit of the settings and timeouts handed to C libraries and Redis.
    public var wholeMilliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
