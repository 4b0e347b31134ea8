/// Writes structured log events: a message plus metadata, never values interpolated into the
/// message. Shaped like swift-log's `Logger` (`Logger(label:)`, `logLevel`, `info(_:metadata:)`,
/// `logger[metadataKey:]`), so call sites stay the same if the real package replaces this one.
///
/// ```swift
/// var logger = Logger(label: "pushline.sender")
/// logger.info("pool opened", metadata: ["pool": "production", "connections": "4"])
/// ```
///
/// The default handler writes one JSON object per line to standard error (see ``JSONLogHandler``).
public struct Logger: Sendable {
    /// Names the component, for example `pushline.sender`; every line carries it.
    public let label: String
    /// Filters, formats and writes the events.
    public var handler: any LogHandler

    /// A logger writing JSON lines to standard error at level `info`.
    public init(label: String) {
        self.init(label: label) { JSONLogHandler(label: $0) }
    }

    /// A logger whose handler `factory` makes for `label` (swift-log's injection point; tests pass a
    /// ``JSONLogHandler`` writing into memory).
    public init(label: String, factory: (_ label: String) -> any LogHandler) {
        self.label = label
        handler = factory(label)
    }

    /// The least severe level that is written.
    public var logLevel: Level {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    /// Metadata attached to every event of this logger.
    public subscript(metadataKey key: String) -> MetadataValue? {
        get { handler.metadata[key] }
        set { handler.metadata[key] = newValue }
    }

    /// Writes an event at `level` when the level is enabled; the message and metadata are only
    /// evaluated then.
    public func log(level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        guard level >= handler.logLevel else { return }
        handler.log(level: level, message: message(), metadata: metadata())
    }

    /// Very detailed tracing, off in production.
    public func trace(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .trace, message(), metadata: metadata())
    }

    /// Detail for debugging.
    public func debug(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .debug, message(), metadata: metadata())
    }

    /// Normal operation worth recording.
    public func info(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .info, message(), metadata: metadata())
    }

    /// Normal but significant: a configuration reload, a pool resized.
    public func notice(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .notice, message(), metadata: metadata())
    }

    /// Something unexpected that the process handles.
    public func warning(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .warning, message(), metadata: metadata())
    }

    /// A failure of one operation.
    public func error(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .error, message(), metadata: metadata())
    }

    /// A failure that stops the process or a whole component.
    public func critical(_ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .critical, message(), metadata: metadata())
    }
}

extension Logger {
    /// Metadata: keys to values (swift-log's `Logger.Metadata`).
    public typealias Metadata = [String: MetadataValue]
}
