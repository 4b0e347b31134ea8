internal import CRdKafka

/// Topic names of consumed or reported messages, remembered per topic handle so a batch does not
/// build the same `String` for every message.
struct TopicNames {
    private var last: (handle: OpaquePointer, name: String)?

    mutating func name(of handle: OpaquePointer?) -> String {
        guard let handle else { return "" }
        if let last, last.handle == handle { return last.name }
        let name = String(cString: rd_kafka_topic_name(handle))
        last = (handle, name)
        return name
    }
}
