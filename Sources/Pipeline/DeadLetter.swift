import APNsCore
import TLS

/// A record on `pushline.dlq`: why a message could not be delivered, where it came from, and
/// enough of it to recognise it — for bad intents and for deliveries whose retries ran out.
/// Schema: `Config/schemas/dlq-v1.schema.json`.
///
/// A dead letter always fits a topic, whatever the original's size: it carries at most the first
/// ``originalPrefixLimit`` bytes of the original, with the original's full size and SHA-256 (the
/// message itself stays in its source topic, at its source position), and its texts are cut to
/// ``textLimit`` bytes. So a dead letter is never much over 40 KiB, under any broker's limit.
public struct DeadLetter: Sendable, Equatable {
    /// What a dead letter carries of the message: its first ``DeadLetter/originalPrefixLimit``
    /// bytes (all of it when it is no longer), its size and its SHA-256. Taken once per message:
    /// the deliveries of one message whose retries ran out share it.
    public struct Original: Sendable, Equatable {
        public let prefix: [UInt8]
        /// The size of the whole message, in bytes.
        public let size: Int
        /// The SHA-256 of the whole message, lower-case hex.
        public let sha256: String

        /// The summary of `bytes`, the whole message as read from Kafka.
        public init(_ bytes: [UInt8]) {
            self.init(bytes, showing: bytes)
        }

        /// The summary of `bytes`, the whole message, showing `shown` (the message with a secret
        /// taken out, ``EncryptionKeyRecord/redacted(_:)``) in place of its bytes.
        public init(_ bytes: [UInt8], showing shown: [UInt8]) {
            prefix = Array(shown.prefix(DeadLetter.originalPrefixLimit))
            size = bytes.count
            sha256 = SHA256Digest.hex(bytes)
        }
    }

    public static let schemaVersion: Int64 = 1
    /// The most bytes of the original a dead letter carries: 4 KiB shows a reader what the
    /// message was (an intent's top-level fields, the start of a payload), and written as base64
    /// and as text it stays far below Kafka's default limit of 1 MB. The whole message is in the
    /// source topic, named by ``source``, for as long as that topic keeps it.
    public static let originalPrefixLimit = 4096
    /// The most bytes of ``detail`` and ``intentID``: they come from the input (a decoder's detail
    /// may quote a key of it), so they are bounded too.
    public static let textLimit = 1024

    /// A machine-readable code (`MalformedJSON`, `IntentTooLarge`, `RetriesExhausted`, …).
    public var reason: String
    public var detail: String
    public var source: SourcePosition
    public var original: Original
    public var intentID: String?
    public var recordedAt: Int64

    /// A dead letter for a message summarised as `original`; `detail` and `intentID` are cut to
    /// ``textLimit`` bytes.
    public init(reason: String, detail: String, source: SourcePosition, original: Original, intentID: String?, recordedAt: Int64) {
        self.reason = reason
        self.detail = detail.utf8Prefix(maxBytes: Self.textLimit)
        self.source = source
        self.original = original
        self.intentID = intentID.map { $0.utf8Prefix(maxBytes: Self.textLimit) }
        self.recordedAt = recordedAt
    }

    /// A dead letter for `original`, the whole message (summarised here).
    public init(reason: String, detail: String, source: SourcePosition, original: [UInt8], intentID: String?, recordedAt: Int64) {
        self.init(reason: reason, detail: detail, source: source, original: Original(original), intentID: intentID, recordedAt: recordedAt)
    }

    /// The prefix travels as standard base64 (`original_base64`), so any bytes survive; when it is
    /// valid UTF-8 (once a character cut at the end of the prefix is dropped) it is also given as
    /// text (`original_text`) for people reading the DLQ.
    public var encoded: [UInt8] {
        JSONFieldWriter.record(capacity: 512 + 3 * original.prefix.count) { writer in
            writer.integer("schema_version", Self.schemaVersion)
            writer.string("reason", reason)
            writer.string("detail", detail)
            source.write("source", to: &writer)
            writer.string("intent_id", intentID)
            writer.integer("original_size", Int64(original.size))
            writer.string("original_sha256", original.sha256)
            writer.string("original_base64", Self.base64(original.prefix))
            writer.string("original_text", Self.text(original.prefix, cut: original.prefix.count < original.size))
            writer.integer("recorded_at", recordedAt)
        }
    }

    /// Standard, padded base64 (the URL-safe alphabet's `-`/`_` mapped back).
    static func base64(_ bytes: [UInt8]) -> String {
        var text = String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }

    /// `bytes` as text when they are UTF-8; when they were `cut` from a longer message, a
    /// character the cut split (at most three bytes at the end) is left out.
    static func text(_ bytes: [UInt8], cut: Bool) -> String? {
        for dropped in 0...(cut ? min(3, bytes.count) : 0) {
            if let text = String(validating: bytes.dropLast(dropped), as: UTF8.self) { return text }
        }
        return nil
    }
}
