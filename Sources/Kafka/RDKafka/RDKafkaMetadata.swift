internal import CRdKafka

extension rd_kafka_metadata {
    /// The answer's entry for the topic named `name`, if the answer has one.
    func topic(named name: String) -> rd_kafka_metadata_topic? {
        UnsafeBufferPointer(start: topics, count: Int(topic_cnt)).first { String(cString: $0.topic) == name }
    }
}
