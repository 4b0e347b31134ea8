import Kafka
import Pipeline
import TLS

/// Turns dead letters back into the messages they came from, to publish again to their source
/// partition once the cause is fixed. The bytes are the original's, so the intent keeps its id and
/// the pipeline's idempotency claims send nothing twice.
public struct DeadLetterReplay: Sendable {
    private let reader: KafkaTopicReader

    /// - Parameter reader: fetches originals that the dead letters do not carry whole.
    public init(reader: KafkaTopicReader) {
        self.reader = reader
    }

    /// The message to publish for `deadLetter`: its whole copy when it carries one, else the
    /// original fetched from its source position (with the original's key); either way checked
    /// against the dead letter's SHA-256, and addressed to the source topic and partition.
    public func original(of deadLetter: DeadLetterRecord) throws(ReplayError) -> KafkaProducerMessage {
        let key: [UInt8]?
        let value: [UInt8]
        if deadLetter.carriesWholeOriginal {
            key = nil
            value = deadLetter.prefix
        } else {
            let message: KafkaConsumerMessage
            do {
                message = try reader.message(at: deadLetter.source.offset, of: deadLetter.source.kafkaPartition)
            } catch let error as KafkaError where error.code == .offsetOutOfRange {
                throw ReplayError(code: .sourceGone, deadLetter: deadLetter.position,
                                  detail: "the original (\(deadLetter.originalSize) bytes, the dead letter has its first "
                                      + "\(deadLetter.prefix.count)) is no longer at \(deadLetter.source): \(error.reason)")
            } catch {
                throw ReplayError(code: .sourceUnreachable, deadLetter: deadLetter.position,
                                  detail: "cannot read the original at \(deadLetter.source): \(error)")
            }
            key = message.key
            value = message.value ?? []
        }
        let digest = SHA256Digest.hex(value)
        guard digest == deadLetter.originalSHA256 else {
            let found = deadLetter.carriesWholeOriginal ? "the dead letter's copy" : "the message at \(deadLetter.source)"
            throw ReplayError(code: .checksumMismatch, deadLetter: deadLetter.position,
                              detail: "\(found) has SHA-256 \(digest), the dead letter says \(deadLetter.originalSHA256)")
        }
        return KafkaProducerMessage(topic: deadLetter.source.topic, partition: deadLetter.source.partition,
                                    key: key, value: value)
    }
}
