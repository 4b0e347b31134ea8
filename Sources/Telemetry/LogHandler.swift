/// Writes the events of a ``Logger`` somewhere (swift-log's `LogHandler`, reduced to what Pushline
/// uses). The logger checks ``logLevel`` before calling ``log(level:message:metadata:)``.
public protocol LogHandler: Sendable {
    /// The least severe level that is written.
    var logLevel: Logger.Level { get set }
    /// Metadata attached to every event.
    var metadata: Logger.Metadata { get set }
    /// Writes one event; `metadata` (the call's own) wins over ``metadata`` on equal keys.
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?)
}
