import CRdKafka
import Foundation
import Runtime
import Testing

/// librdkafka against its in-process mock cluster: no broker, no network beyond loopback.
@Suite("librdkafka mock cluster")
struct RdKafkaSmokeTests {
    private static let key = Array("device-abcd".utf8) + [0x00, 0xFF]
    private static let value = Array(#"{"token":"abcd","payload":{"aps":{"alert":"hello"}}}"#.utf8)

    @Test func producerGetsSuccessfulDeliveryReportFromMockCluster() async throws {
        let report = try await onDedicatedThread {
            let cluster = try MockCluster()
            let topic = try cluster.createTopic("pushline.smoke.delivery")
            return try produceOne(to: cluster, topic: topic, key: Self.key, value: Self.value, deadline: Deadline(after: .seconds(30)))
        }

        #expect(report.error == RD_KAFKA_RESP_ERR_NO_ERROR.rawValue, "\(report.errorDescription)")
        #expect(report.partition == 0)
        #expect(report.offset == 0, "first message on a fresh topic")
    }

    @Test func producedMessageIsConsumedBackWithSameKeyAndValue() async throws {
        let (report, consumed) = try await onDedicatedThread {
            let deadline = Deadline(after: .seconds(30))
            let cluster = try MockCluster()
            let topic = try cluster.createTopic("pushline.smoke.roundtrip")
            let report = try produceOne(to: cluster, topic: topic, key: Self.key, value: Self.value, deadline: deadline)
            let consumed = try consumeFirst(from: cluster, topic: topic, deadline: deadline)
            return (report, consumed)
        }

        #expect(consumed.key == Self.key)
        #expect(consumed.value == Self.value)
        #expect(consumed.partition == 0)
        #expect(consumed.offset == report.offset)
    }
}

// MARK: - Produce and consume

private struct KafkaFailure: Error, CustomStringConvertible {
    let description: String
}

/// The delivery report librdkafka hands the producer's `dr_msg_cb`, copied out of C memory.
private struct DeliveryReport: Sendable {
    var error: Int32
    var errorDescription: String
    var partition: Int32
    var offset: Int64
}

/// One consumed message, copied out before the C message is destroyed.
private struct ConsumedMessage: Sendable {
    var key: [UInt8]
    var value: [UInt8]
    var partition: Int32
    var offset: Int64
}

/// Produces one copied message to partition 0 and waits for its delivery report.
private func produceOne(
    to cluster: MockCluster, topic: String, key: [UInt8], value: [UInt8], deadline: Deadline
) throws -> DeliveryReport {
    let recorder = DeliveryRecorder()
    let producer = try KafkaHandle(
        RD_KAFKA_PRODUCER,
        properties: ["bootstrap.servers": cluster.bootstrapServers, "linger.ms": "0"],
        deliveryRecorder: recorder
    )
    try producer.withHandle { rk in
        try produce(rk, topic: topic, key: key, value: value)

        let flushed = rd_kafka_flush(rk, deadline.remainingMilliseconds)
        guard flushed == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaFailure(description: "rd_kafka_flush: \(describe(flushed))")
        }
        // flush serves delivery reports, but keep polling (bounded) in case it raced.
        while recorder.reports.isEmpty, !deadline.hasPassed {
            rd_kafka_poll(rk, 100)
        }
    }
    guard let report = recorder.reports.first else {
        throw KafkaFailure(description: "no delivery report for \(topic) before the deadline")
    }
    guard recorder.reports.count == 1 else {
        throw KafkaFailure(description: "expected one delivery report, got \(recorder.reports)")
    }
    return report
}

/// `rd_kafka_produceva`, the array form of the variadic `rd_kafka_producev`.
private func produce(_ rk: OpaquePointer, topic: String, key: [UInt8], value: [UInt8]) throws {
    // RD_KAFKA_MSG_F_COPY: librdkafka copies key and value, so these pointers need only outlive the call.
    let error = topic.withCString { topicName in
        key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var fields = [rd_kafka_vu_t](repeating: rd_kafka_vu_t(), count: 5)
                fields[0].vtype = RD_KAFKA_VTYPE_TOPIC
                fields[0].u.cstr = topicName
                fields[1].vtype = RD_KAFKA_VTYPE_PARTITION
                fields[1].u.i32 = 0
                fields[2].vtype = RD_KAFKA_VTYPE_KEY
                fields[2].u.mem.ptr = UnsafeMutableRawPointer(mutating: keyBytes.baseAddress)
                fields[2].u.mem.size = keyBytes.count
                fields[3].vtype = RD_KAFKA_VTYPE_VALUE
                fields[3].u.mem.ptr = UnsafeMutableRawPointer(mutating: valueBytes.baseAddress)
                fields[3].u.mem.size = valueBytes.count
                fields[4].vtype = RD_KAFKA_VTYPE_MSGFLAGS
                fields[4].u.i = RD_KAFKA_MSG_F_COPY
                return rd_kafka_produceva(rk, fields, fields.count)
            }
        }
    }
    if let error {
        defer { rd_kafka_error_destroy(error) }
        throw KafkaFailure(description: "rd_kafka_produceva: \(String(cString: rd_kafka_error_string(error)))")
    }
}

/// Assigns partition 0 from the beginning and polls (bounded) until the first message arrives.
private func consumeFirst(from cluster: MockCluster, topic: String, deadline: Deadline) throws -> ConsumedMessage {
    let consumer = try KafkaHandle(
        RD_KAFKA_CONSUMER,
        properties: [
            "bootstrap.servers": cluster.bootstrapServers,
            "group.id": "pushline-smoke",
            "enable.auto.commit": "false",
            "enable.partition.eof": "false",
        ]
    )
    return try consumer.withHandle { rk in
        let redirected = rd_kafka_poll_set_consumer(rk)
        guard redirected == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaFailure(description: "rd_kafka_poll_set_consumer: \(describe(redirected))")
        }
        guard let partitions = rd_kafka_topic_partition_list_new(1) else {
            throw KafkaFailure(description: "rd_kafka_topic_partition_list_new returned NULL")
        }
        defer { rd_kafka_topic_partition_list_destroy(partitions) }
        guard let partition = rd_kafka_topic_partition_list_add(partitions, topic, 0) else {
            throw KafkaFailure(description: "rd_kafka_topic_partition_list_add returned NULL")
        }
        partition.pointee.offset = Int64(RD_KAFKA_OFFSET_BEGINNING)
        let assigned = rd_kafka_assign(rk, partitions)
        guard assigned == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaFailure(description: "rd_kafka_assign: \(describe(assigned))")
        }

        var lastError = "none"
        while !deadline.hasPassed {
            guard let message = rd_kafka_consumer_poll(rk, min(200, deadline.remainingMilliseconds)) else { continue }
            // Every message returned by consumer_poll is ours to destroy, error or not.
            defer { rd_kafka_message_destroy(message) }
            let fields = message.pointee
            guard fields.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                lastError = describe(fields.err)
                continue
            }
            return ConsumedMessage(
                key: bytes(fields.key, count: fields.key_len),
                value: bytes(fields.payload, count: fields.len),
                partition: fields.partition,
                offset: fields.offset
            )
        }
        throw KafkaFailure(description: "no message consumed from \(topic) before the deadline (last error: \(lastError))")
    }
}

// MARK: - Handles

/// Owns an `rd_kafka_t` (and, for consumers, closes it first) and lends it only through `withHandle`.
private final class KafkaHandle {
    private let rk: OpaquePointer
    private let type: rd_kafka_type_t
    /// Kept alive for as long as the handle: librdkafka holds an unretained pointer to it.
    private let deliveryRecorder: DeliveryRecorder?

    init(_ type: rd_kafka_type_t, properties: [String: String], deliveryRecorder: DeliveryRecorder? = nil) throws {
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaFailure(description: "rd_kafka_conf_new returned NULL")
        }
        var errorText = [CChar](repeating: 0, count: 512)
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            guard rd_kafka_conf_set(conf, name, value, &errorText, errorText.count) == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                throw KafkaFailure(description: "rd_kafka_conf_set(\(name)=\(value)): \(text(errorText))")
            }
        }
        if let deliveryRecorder {
            rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(deliveryRecorder).toOpaque())
            rd_kafka_conf_set_dr_msg_cb(conf, recordDelivery)
        }
        // rd_kafka_new takes ownership of the conf only when it succeeds.
        guard let rk = rd_kafka_new(type, conf, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(conf)
            throw KafkaFailure(description: "rd_kafka_new: \(text(errorText))")
        }
        self.rk = rk
        self.type = type
        self.deliveryRecorder = deliveryRecorder
    }

    deinit {
        if type == RD_KAFKA_CONSUMER {
            _ = rd_kafka_consumer_close(rk)
        }
        rd_kafka_destroy(rk)
    }

    func withHandle<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(rk) }
    }
}

/// A one-broker mock cluster hosted by its own producer handle; destroyed before that handle.
private final class MockCluster {
    private let host: KafkaHandle
    private let cluster: OpaquePointer
    let bootstrapServers: String

    init() throws {
        // The host only runs the mock brokers and never connects anywhere, so its
        // "no bootstrap.servers" notice (level 5) is noise.
        host = try KafkaHandle(RD_KAFKA_PRODUCER, properties: ["log_level": "4"])
        guard let cluster = host.withHandle({ rd_kafka_mock_cluster_new($0, 1) }) else {
            throw KafkaFailure(description: "rd_kafka_mock_cluster_new returned NULL")
        }
        self.cluster = cluster
        // The string belongs to the cluster; copy it.
        bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)
    }

    func createTopic(_ name: String, partitions: Int32 = 1) throws -> String {
        let created = rd_kafka_mock_topic_create(cluster, name, partitions, 1)
        guard created == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaFailure(description: "rd_kafka_mock_topic_create(\(name)): \(describe(created))")
        }
        return name
    }
}

/// The `dr_msg_cb` opaque. Only touched on the thread that polls the producer.
private final class DeliveryRecorder {
    var reports: [DeliveryReport] = []
}

/// Delivery-report callback: records and returns. The message belongs to librdkafka; never destroy it.
private func recordDelivery(
    _ rk: OpaquePointer?, _ message: UnsafePointer<rd_kafka_message_t>?, _ opaque: UnsafeMutableRawPointer?
) {
    guard let message, let opaque else { return }
    let recorder = Unmanaged<DeliveryRecorder>.fromOpaque(opaque).takeUnretainedValue()
    let fields = message.pointee
    recorder.reports.append(DeliveryReport(
        error: fields.err.rawValue,
        errorDescription: describe(fields.err),
        partition: fields.partition,
        offset: fields.offset
    ))
}

// MARK: - Small helpers

/// librdkafka's blocking calls (flush, consumer_poll, consumer_close) stay off the cooperative pool.
private func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        ServiceThread().start(name: "rdkafka-smoke") { continuation.resume(with: Result { try body() }) }
    }
}

private func describe(_ error: rd_kafka_resp_err_t) -> String {
    "\(String(cString: rd_kafka_err2name(error))) (\(String(cString: rd_kafka_err2str(error))))"
}

private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private func bytes(_ pointer: UnsafeMutableRawPointer?, count: Int) -> [UInt8] {
    guard let pointer, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
}
