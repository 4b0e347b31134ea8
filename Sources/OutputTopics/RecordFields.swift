import APNsCore
import Kafka
import Pipeline

/// The top-level fields of one output record (outcome or dead letter), read by name with errors
/// that say which record and which field. Every output schema has `schema_version`; version 1 is the
/// one this reader knows.
struct RecordFields {
    let object: JSONObject
    let message: KafkaConsumerMessage

    init(_ message: KafkaConsumerMessage) throws(OutputRecordError) {
        self.message = message
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(message.value ?? [])
        } catch {
            throw Self.failure(message, "not JSON: \(error)")
        }
        guard let object = parsed.objectValue else { throw Self.failure(message, "not a JSON object") }
        self.object = object
        guard let version = object["schema_version"], case .integer(let number) = version else {
            throw failure("schema_version is missing or not an integer")
        }
        guard number == 1 else {
            throw OutputRecordError(code: "UnknownSchemaVersion", topicPartition: message.topicPartition, offset: message.offset,
                                    detail: "schema_version \(number); this reader knows version 1")
        }
    }

    func failure(_ detail: String) -> OutputRecordError {
        Self.failure(message, detail)
    }

    private static func failure(_ message: KafkaConsumerMessage, _ detail: String) -> OutputRecordError {
        OutputRecordError(code: "UnreadableRecord", topicPartition: message.topicPartition, offset: message.offset, detail: detail)
    }

    func string(_ key: String) throws(OutputRecordError) -> String {
        guard let value = optionalString(key) else { throw failure("\(key) is missing or not a string") }
        return value
    }

    func optionalString(_ key: String) -> String? {
        object[key]?.stringValue
    }

    func integer(_ key: String) throws(OutputRecordError) -> Int64 {
        guard let value = optionalInteger(key) else { throw failure("\(key) is missing or not an integer") }
        return value
    }

    func optionalInteger(_ key: String) -> Int64? {
        if case .integer(let value) = object[key] { value } else { nil }
    }

    /// The `source` object: where the intent (or token record) was read.
    func source() throws(OutputRecordError) -> SourcePosition {
        guard let source = object["source"]?.objectValue, let topic = source["topic"]?.stringValue,
              case .integer(let partition) = source["partition"], case .integer(let offset) = source["offset"],
              let partitionNumber = Int32(exactly: partition) else {
            throw failure("source is missing or not {topic, partition, offset}")
        }
        return SourcePosition(topic: topic, partition: partitionNumber, offset: offset)
    }
}

extension SourcePosition {
    /// The topic and partition of this position, as the Kafka wrapper names them.
    public var kafkaPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }
}
