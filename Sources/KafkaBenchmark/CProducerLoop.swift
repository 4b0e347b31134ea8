internal import CRdKafka
import Runtime

/// The produce baseline: `rd_kafka_produceva` in a loop with a per-message opaque, delivery reports
/// counted by a `dr_msg_cb` served by `rd_kafka_poll` on the same thread, then `rd_kafka_flush`.
enum CProducerLoop {
    /// Produces `count` copies of `payload` to `topic` and returns the seconds until all are delivered.
    static func run(topic: String, count: Int, payload: [UInt8], properties: [String: String]) throws(KafkaBenchmarkError) -> Double {
        let counter = DeliveryCounter()
        let client = try CClient.make(RD_KAFKA_PRODUCER, properties) { conf in
            rd_kafka_conf_set_dr_msg_cb(conf, countDelivery)
            rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(counter).toOpaque())
        }
        defer { rd_kafka_destroy(client) }
        let clock = MonotonicClock.system
        let start = clock.now
        var failure: KafkaBenchmarkError?
        topic.withCString { topicName in
            payload.withUnsafeBytes { bytes in
                for index in 0..<count where failure == nil {
                    var values = (rd_kafka_vu_t(), rd_kafka_vu_t(), rd_kafka_vu_t(), rd_kafka_vu_t())
                    values.0.vtype = RD_KAFKA_VTYPE_TOPIC
                    values.0.u.cstr = topicName
                    values.1.vtype = RD_KAFKA_VTYPE_VALUE
                    values.1.u.mem.ptr = UnsafeMutableRawPointer(mutating: bytes.baseAddress)
                    values.1.u.mem.size = bytes.count
                    values.2.vtype = RD_KAFKA_VTYPE_OPAQUE
                    values.2.u.ptr = UnsafeMutableRawPointer(bitPattern: index + 1)
                    values.3.vtype = RD_KAFKA_VTYPE_MSGFLAGS
                    values.3.u.i = RD_KAFKA_MSG_F_COPY
                    while let error = withUnsafePointer(to: &values, { tuple in
                        tuple.withMemoryRebound(to: rd_kafka_vu_t.self, capacity: 4) { rd_kafka_produceva(client, $0, 4) }
                    }) {
                        let code = rd_kafka_error_code(error)
                        rd_kafka_error_destroy(error)
                        guard code == RD_KAFKA_RESP_ERR__QUEUE_FULL else {
                            failure = KafkaBenchmarkError("C baseline: produce: \(String(cString: rd_kafka_err2str(code)))")
                            break
                        }
                        rd_kafka_poll(client, 1)
                    }
                    if index % 1000 == 0 { rd_kafka_poll(client, 0) }
                }
            }
        }
        if let failure { throw failure }
        guard rd_kafka_flush(client, 120_000) == RD_KAFKA_RESP_ERR_NO_ERROR, counter.delivered == count else {
            throw KafkaBenchmarkError("C baseline: \(counter.delivered) of \(count) delivered, \(counter.failed) failed")
        }
        return (clock.now - start).inSeconds
    }
}

/// Counts delivery reports; touched only on the thread that polls the baseline's producer.
private final class DeliveryCounter {
    var delivered = 0
    var failed = 0
}

private func countDelivery(_ client: OpaquePointer?, _ message: UnsafePointer<rd_kafka_message_t>?, _ opaque: UnsafeMutableRawPointer?) {
    guard let message, let opaque else { return }
    let counter = Unmanaged<DeliveryCounter>.fromOpaque(opaque).takeUnretainedValue()
    if message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR { counter.delivered += 1 } else { counter.failed += 1 }
}
