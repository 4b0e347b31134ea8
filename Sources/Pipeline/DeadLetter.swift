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
        var object: JSONObject = ["schema_version": .integer(Self.schemaVersion), "reason": .string(reason),
                                  "detail": .string(detail), "source": source.json]
        object.append("intent_id", intentID.map(JSONValue.string))
        object.append("original_base64", .string(Self.base64(original)))
        object.append("original_text", String(validating: original, as: UTF8.self).map(JSONValue.string))
        object.append("recorded_at", .integer(recordedAt))
        return object.encoded
    }

    /// Standard, padded base64 (the URL-safe alphabet's `-`/`_` mapped back).
    static func base64(_ bytes: [UInt8]) -> String {
        var text = String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }
}
