import Foundation
import Kafka
import Pipeline

/// One dead letter (`Config/schemas/dlq-v1.schema.json`) as reports and replays read it.
public struct DeadLetterRecord: Sendable {
    /// Where the dead letter itself is.
    public let position: SourcePosition
    public let reason: String
    public let detail: String
    /// Where the original message was read; it stays there for as long as the topic keeps it.
    public let source: SourcePosition
    public let intentID: String?
    /// The original's size, bytes.
    public let originalSize: Int
    /// The original's SHA-256, lower-case hex.
    public let originalSHA256: String
    /// The original's first bytes (at most 4096; 128 in a stand-in).
    public let prefix: [UInt8]
    /// Unix milliseconds.
    public let recordedAt: Int64

    /// Whether the dead letter carries the whole original.
    public var carriesWholeOriginal: Bool { prefix.count == originalSize }

    /// Reads a dead letter.
    /// - Throws: ``OutputRecordError`` naming the record and the field that is wrong.
    public init(_ message: KafkaConsumerMessage) throws(OutputRecordError) {
        let fields = try RecordFields(message)
        position = SourcePosition(topic: message.topicPartition.topic, partition: message.topicPartition.partition, offset: message.offset)
        reason = try fields.string("reason")
        detail = try fields.string("detail")
        source = try fields.source()
        intentID = fields.optionalString("intent_id")
        guard let size = Int(exactly: try fields.integer("original_size")) else { throw fields.failure("original_size is out of range") }
        originalSize = size
        originalSHA256 = try fields.string("original_sha256")
        guard let prefix = Data(base64Encoded: try fields.string("original_base64")) else {
            throw fields.failure("original_base64 is not base64")
        }
        self.prefix = [UInt8](prefix)
        recordedAt = try fields.integer("recorded_at")
    }
}
