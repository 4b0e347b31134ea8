internal import CRdKafka

/// librdkafka's in-process mock Kafka cluster (`rdkafka_mock.h`): real brokers speaking the Kafka
/// protocol on local ports, with consumer groups, idempotent producers and fault injection. For
/// tests, benchmarks and `pushline-dev dev-kafka`; not a durable store.
public final class KafkaMockCluster: @unchecked Sendable {  // the mock API posts every call to the cluster's own thread; `cluster` never changes
    /// librdkafka needs a client handle to own the cluster; this one never connects anywhere.
    private let owner: RDKafkaClient
    private let cluster: OpaquePointer
    /// `bootstrap.servers` for clients of this cluster.
    public let bootstrapServers: String
    /// Brokers are numbered 1 through `brokerCount`.
    public let brokerCount: Int

    /// A Kafka protocol request type, for fault injection (the protocol's ApiKey numbers).
    public struct RequestType: Sendable, Hashable {
        public let apiKey: Int16

        public init(apiKey: Int16) {
            self.apiKey = apiKey
        }

        public static let produce = RequestType(apiKey: 0)
        public static let fetch = RequestType(apiKey: 1)
        public static let listOffsets = RequestType(apiKey: 2)
        public static let metadata = RequestType(apiKey: 3)
        public static let offsetCommit = RequestType(apiKey: 8)
        public static let offsetFetch = RequestType(apiKey: 9)
        public static let findCoordinator = RequestType(apiKey: 10)
        public static let joinGroup = RequestType(apiKey: 11)
        public static let heartbeat = RequestType(apiKey: 12)
        public static let syncGroup = RequestType(apiKey: 14)
        public static let initProducerID = RequestType(apiKey: 22)
    }

    public init(brokers: Int = 3) throws(KafkaError) {
        // log_level 4 hides the owner's notice that it has no bootstrap.servers (it needs none).
        owner = try RDKafkaClient(type: RD_KAFKA_PRODUCER, properties: RDKafkaProperties(["log_level": "4"]))
        guard let created = rd_kafka_mock_cluster_new(owner.handle, Int32(brokers)) else {
            throw KafkaError.configuration("cannot start a mock cluster of \(brokers) brokers")
        }
        cluster = created
        brokerCount = brokers
        bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(created))
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)  // before `owner` is released
    }

    /// Creates a topic with its partitions' leaders spread over the brokers.
    public func createTopic(_ name: String, partitions: Int, replicationFactor: Int = 1) throws(KafkaError) {
        try check(rd_kafka_mock_topic_create(cluster, name, Int32(partitions), Int32(replicationFactor)),
                  "create topic \(name)")
    }

    /// Takes a broker down: its connections close and it accepts no more until ``setBrokerUp(_:)``.
    public func setBrokerDown(_ broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_down(cluster, broker), "take broker \(broker) down")
    }

    /// Brings a broker taken down by ``setBrokerDown(_:)`` back.
    public func setBrokerUp(_ broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_up(cluster, broker), "bring broker \(broker) up")
    }

    /// Makes the next requests of `type`, on any broker, fail with `errors` in order, one each.
    public func pushRequestErrors(_ errors: [KafkaError.Code], for type: RequestType) {
        let codes = errors.map { rd_kafka_resp_err_t(rawValue: $0.rawValue) }
        rd_kafka_mock_push_request_errors_array(cluster, type.apiKey, codes.count, codes)
    }

    private func check(_ result: rd_kafka_resp_err_t, _ what: String) throws(KafkaError) {
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(result, what) }
    }
}
