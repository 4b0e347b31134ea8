/// Where a ``JSONLogHandler`` puts its lines: ``FileLogWriter`` for standard error or a file, a
/// collector in tests.
public protocol LogLineWriter: Sendable {
    /// Writes one complete line, newline included, without interleaving it with other lines.
    func write(line: [UInt8])
}
