import APNsCore
import Runtime

/// Writes each event as one JSON object on one line:
///
/// ```json
/// {"ts":"2026-11-30T08:23:32.123Z","level":"info","label":"pushline.sender","message":"pool opened","pool":"production"}
/// ```
///
/// `ts` (UTC, milliseconds), `level`, `label` and `message` come first, then the metadata sorted by
/// key: the handler's own, overridden by the call's. A metadata key that is one of those four is
/// written as `metadata.<key>`. Values of keys that look secret (`password`, `token`,
/// `authorization`, `key`, `secret`; see `docs/telemetry.md`) are written as `[REDACTED]`, at any
/// depth: a safety net, not a licence to log secrets. Strings are escaped by APNsCore's
/// `JSONWriter`, so no value can break the line or the object.
public struct JSONLogHandler: LogHandler {
    private static let reservedKeys: Set<String> = ["ts", "level", "label", "message"]

    /// The logger's label, written on every line.
    public let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let writer: any LogLineWriter

    /// A handler for `label` writing lines to `writer` (standard error by default) from `logLevel` up.
    public init(label: String, logLevel: Logger.Level = .info, writer: any LogLineWriter = FileLogWriter.standardError) {
        self.label = label
        self.logLevel = logLevel
        self.writer = writer
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata callMetadata: Logger.Metadata?) {
        let merged = metadata.merging(callMetadata ?? [:]) { _, call in call }
        var members: [JSONObject.Member] = [
            .init("ts", .string(WallClock.system.utcTimestamp())),
            .init("level", .string(level.rawValue)),
            .init("label", .string(label)),
            .init("message", .string(message.description)),
        ]
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            let writtenKey = Self.reservedKeys.contains(key) ? "metadata.\(key)" : key
            members.append(.init(writtenKey, Self.jsonValue(of: value, key: key)))
        }
        var line: [UInt8] = []
        line.reserveCapacity(256)
        JSONWriter.appendValue(.object(JSONObject(members)), to: &line)
        line.append(UInt8(ascii: "\n"))
        writer.write(line: line)
    }

    /// `value` as JSON, or the redaction placeholder when `key` looks secret.
    private static func jsonValue(of value: Logger.MetadataValue, key: String?) -> JSONValue {
        if let key, SecretKeyRedaction.isSecret(key) { return .string(SecretKeyRedaction.placeholder) }
        switch value {
        case .string(let text): return .string(text)
        case .stringConvertible(let convertible): return .string(convertible.description)
        case .array(let elements): return .array(elements.map { jsonValue(of: $0, key: nil) })
        case .dictionary(let dictionary):
            let members = dictionary.sorted { $0.key < $1.key }
            return .object(JSONObject(members.map { .init($0.key, jsonValue(of: $0.value, key: $0.key)) }))
        }
    }
}
