import APNsCore

/// A record on `pushline.dlq`: the original bytes, why they could not be delivered, and where
/// they came from — for bad intents and for deliveries whose retries ran out.
/// Schema: `Config/schemas/dlq-v1.schema.json`.
public struct DeadLetter: Sendable, Equatable {
    public static let schemaVersion: Int64 = 1

    /// A machine-readable code (`MalformedJSON`, `MissingField`, `RetriesExhausted`, …).
    public var reason: String
    public var detail: String
    public var source: SourcePosition
    /// The message exactly as read from Kafka.
    public var original: [UInt8]
    public var intentID: String?
    public var recordedAt: Int64

    public init(reason: String, detail: String, source: SourcePosition, original: [UInt8], intentID: String?, recordedAt: Int64) {
        self.reason = reason
        self.detail = detail
        self.source = source
        self.original = original
        self.intentID = intentID
        self.recordedAt = recordedAt
    }

    /// The original bytes travel as standard base64 (`original_base64`), so any bytes survive; when
    /// they are valid UTF-8 they are also given as text (`original_text`) for people reading the DLQ.
    public var encoded: [UInt8] {
        var writer = JSONFieldWriter(capacity: 256 + 2 * original.count)
        writer.integer("schema_version", Self.schemaVersion)
        writer.string("reason", reason)
        writer.string("detail", detail)
        source.write("source", to: &writer)
        writer.string("intent_id", intentID)
        writer.string("original_base64", Self.base64(original))
        writer.string("original_text", String(validating: original, as: UTF8.self))
        writer.integer("recorded_at", recordedAt)
        return writer.finish()
    }

    /// Standard, padded base64 (the URL-safe alphabet's `-`/`_` mapped back).
    static func base64(_ bytes: [UInt8]) -> String {
        var text = String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }
}
