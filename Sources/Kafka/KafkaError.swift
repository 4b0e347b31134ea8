internal import CRdKafka

/// A failure reported by librdkafka or by Pushline's Kafka wrapper: a machine-readable ``Code``,
/// the partition it concerns when there is one, a reason for people, and whether trying again can
/// help. Reasons never contain the values of secret properties (see ``KafkaConsumerConfiguration``).
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// librdkafka's error code (`rd_kafka_resp_err_t`): broker errors are positive, client-side
    /// errors negative. An open set: new librdkafka codes need no change here.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        init(_ error: rd_kafka_resp_err_t) {
            self.rawValue = error.rawValue
        }

        /// librdkafka's name for the code, for example `NOT_LEADER_FOR_PARTITION` or `_QUEUE_FULL`;
        /// the same text reaches logs and metric labels.
        public var name: String {
            String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: rawValue)))
        }

        public var description: String { name }

        public static let queueFull = Code(RD_KAFKA_RESP_ERR__QUEUE_FULL)
        public static let timedOut = Code(RD_KAFKA_RESP_ERR__TIMED_OUT)
        public static let messageTimedOut = Code(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)
        public static let transport = Code(RD_KAFKA_RESP_ERR__TRANSPORT)
        public static let allBrokersDown = Code(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
        public static let invalidArgument = Code(RD_KAFKA_RESP_ERR__INVALID_ARG)
        public static let unknownPartition = Code(RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
        public static let state = Code(RD_KAFKA_RESP_ERR__STATE)
        public static let fatal = Code(RD_KAFKA_RESP_ERR__FATAL)
        public static let noOffset = Code(RD_KAFKA_RESP_ERR__NO_OFFSET)
        /// The client was already closed.
        public static let destroyed = Code(RD_KAFKA_RESP_ERR__DESTROY)
        public static let notLeaderForPartition = Code(RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION)
        public static let leaderNotAvailable = Code(RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE)
        public static let requestTimedOut = Code(RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT)
        public static let notEnoughReplicas = Code(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS)
        public static let notEnoughReplicasAfterAppend = Code(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        public static let networkException = Code(RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION)
        public static let coordinatorNotAvailable = Code(RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE)
        public static let notCoordinator = Code(RD_KAFKA_RESP_ERR_NOT_COORDINATOR)
        public static let rebalanceInProgress = Code(RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS)
        public static let messageSizeTooLarge = Code(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)
        /// The broker found the record or its batch malformed (`CORRUPT_MESSAGE`).
        public static let invalidMessage = Code(RD_KAFKA_RESP_ERR_INVALID_MSG)
        public static let invalidMessageSize = Code(RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE)
        /// The broker's checks refused the record (for example a compacted topic and no key).
        public static let invalidRecord = Code(RD_KAFKA_RESP_ERR_INVALID_RECORD)
        public static let recordListTooLarge = Code(RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE)
        public static let invalidTimestamp = Code(RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP)
        public static let unsupportedForMessageFormat = Code(RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT)
        /// librdkafka could not build the message (a local check).
        public static let badMessage = Code(RD_KAFKA_RESP_ERR__BAD_MSG)
        public static let topicAuthorizationFailed = Code(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)
        public static let unknownTopicOrPartition = Code(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
        /// The offset is not in the partition: below its first retained message (retention or
        /// compaction removed it) or at or after its end.
        public static let offsetOutOfRange = Code(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)
        /// The group coordinator no longer knows this member (its session expired).
        public static let unknownMemberID = Code(RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID)
        /// The member's generation of the group is over (the group rebalanced without it).
        public static let illegalGeneration = Code(RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION)

        /// Codes by which the group refuses a commit because it has moved on from this member:
        /// its generation is over, it is no longer known, or a rebalance is under way.
        public static let groupMovedOn: Set<Code> = [.illegalGeneration, .unknownMemberID, .rebalanceInProgress]

        /// Codes that describe a passing condition (a broker away, a leader moving, a full queue).
        static let transient: Set<Code> = [
            .queueFull, .timedOut, .messageTimedOut, .transport, .allBrokersDown, .notLeaderForPartition,
            .leaderNotAvailable, .requestTimedOut, .notEnoughReplicas, .notEnoughReplicasAfterAppend,
            .networkException, .coordinatorNotAvailable, .notCoordinator, .rebalanceInProgress,
        ]

        /// Codes by which Kafka refuses one record for what it is (too large, malformed, a timestamp
        /// out of range): sending the same bytes again can never succeed. Refusals about the topic or
        /// the cluster (authorization, an unknown topic) are not in it: they pass when the cause is fixed.
        static let permanent: Set<Code> = [
            .messageSizeTooLarge, .invalidMessage, .invalidMessageSize, .invalidRecord, .recordListTooLarge,
            .invalidTimestamp, .unsupportedForMessageFormat, .badMessage,
        ]
    }

    public let code: Code
    /// What happened, for people.
    public let reason: String
    /// The partition concerned, when the error is about one.
    public let topicPartition: KafkaTopicPartition?
    /// Whether the same operation may succeed later (a broker down, a full queue, a moving leader).
    public let isRetryable: Bool
    /// Whether the client is unusable from now on (for example a fatal idempotent-producer error).
    public let isFatal: Bool

    /// Whether Kafka refuses this very record for good (too large, malformed): the same bytes can
    /// never be delivered, whether the refusal came from the broker or from librdkafka's own checks
    /// at produce time. Neither retryable nor permanent (authorization, an unknown topic) means a
    /// condition outside the record that may pass.
    public var isPermanent: Bool { Code.permanent.contains(code) }

    public init(code: Code, reason: String, topicPartition: KafkaTopicPartition? = nil, isRetryable: Bool? = nil,
                isFatal: Bool = false) {
        self.code = code
        self.reason = reason
        self.topicPartition = topicPartition
        self.isRetryable = isRetryable ?? Code.transient.contains(code)
        self.isFatal = isFatal
    }

    init(_ error: rd_kafka_resp_err_t, _ context: String, topicPartition: KafkaTopicPartition? = nil) {
        self.init(code: Code(error), reason: "\(context): \(String(cString: rd_kafka_err2str(error)))",
                  topicPartition: topicPartition)
    }

    /// Takes over a `rd_kafka_error_t` (and destroys it), keeping librdkafka's fatal flag; retryable
    /// when librdkafka says so or the code is a passing condition (librdkafka does not flag a full queue).
    init(taking error: OpaquePointer, _ context: String, topicPartition: KafkaTopicPartition? = nil) {
        defer { rd_kafka_error_destroy(error) }
        let code = Code(rd_kafka_error_code(error))
        self.init(code: code, reason: "\(context): \(String(cString: rd_kafka_error_string(error)))",
                  topicPartition: topicPartition,
                  isRetryable: rd_kafka_error_is_retriable(error) != 0 || Code.transient.contains(code),
                  isFatal: rd_kafka_error_is_fatal(error) != 0)
    }

    /// A configuration that librdkafka or Pushline refused.
    static func configuration(_ reason: String) -> KafkaError {
        KafkaError(code: .invalidArgument, reason: reason, isRetryable: false)
    }

    public var description: String {
        let place = topicPartition.map { " (\($0))" } ?? ""
        return "\(code.name)\(place): \(reason)"
    }
}
