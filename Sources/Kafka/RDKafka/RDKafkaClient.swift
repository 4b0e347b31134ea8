internal import CRdKafka

/// Owns one `rd_kafka_t` (consumer, producer, or the owner of a mock cluster) and the object its
/// C callbacks reach through the configuration's opaque pointer.
final class RDKafkaClient: @unchecked Sendable {  // librdkafka handles are thread-safe; `handle` never changes
    let handle: OpaquePointer
    /// Released only after `rd_kafka_destroy` returns (stored properties outlive `deinit`'s body), so
    /// no callback can reach a freed context.
    private let callbackContext: AnyObject?
    private let destroyFlags: Int32

    /// - Parameters:
    ///   - callbackContext: passed unretained as the configuration's opaque; kept alive here.
    ///   - destroyFlags: for `rd_kafka_destroy_flags`, for example to skip a consumer's close.
    ///   - configure: sets callbacks and event masks on the configuration before the client exists.
    init(type: rd_kafka_type_t, properties: RDKafkaProperties, callbackContext: AnyObject? = nil,
         destroyFlags: Int32 = 0, configure: (OpaquePointer) -> Void = { _ in }) throws(KafkaError) {
        let conf = try properties.makeConf()
        if let callbackContext {
            rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(callbackContext).toOpaque())
        }
        configure(conf)
        let (created, message) = withErrorString { rd_kafka_new(type, conf, $0, $1) }
        guard let created else {
            rd_kafka_conf_destroy(conf)  // rd_kafka_new frees the conf only on success
            throw KafkaError.configuration("cannot create the Kafka client: \(properties.redact(message))")
        }
        handle = created
        self.callbackContext = callbackContext
        self.destroyFlags = destroyFlags
    }

    deinit {
        rd_kafka_destroy_flags(handle, destroyFlags)
    }
}
