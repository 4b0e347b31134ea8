internal import CRdKafka

/// The baseline's own librdkafka setup, written as a C program would: a conf with the given
/// properties, optional callbacks, `rd_kafka_new`. The caller destroys the handle.
enum CClient {
    static func make(_ type: rd_kafka_type_t, _ properties: [String: String],
                     configure: (OpaquePointer) -> Void = { _ in }) throws(KafkaBenchmarkError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        let errors = UnsafeMutablePointer<CChar>.allocate(capacity: 512)
        defer { errors.deallocate() }
        errors.initialize(repeating: 0, count: 512)
        for (key, value) in properties where rd_kafka_conf_set(conf, key, value, errors, 512) != RD_KAFKA_CONF_OK {
            rd_kafka_conf_destroy(conf)
            throw KafkaBenchmarkError("C baseline: property \(key): \(String(cString: errors))")
        }
        configure(conf)
        guard let client = rd_kafka_new(type, conf, errors, 512) else {
            rd_kafka_conf_destroy(conf)  // rd_kafka_new frees the conf only on success
            throw KafkaBenchmarkError("C baseline: rd_kafka_new: \(String(cString: errors))")
        }
        return client
    }
}
