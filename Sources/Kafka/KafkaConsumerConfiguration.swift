/// How a ``KafkaConsumer`` joins its group and what librdkafka is told. Defaults live here.
///
/// Fixed by the consumer, because its guarantees rest on them: `enable.auto.offset.store=false`
/// (offsets are stored only at each partition's ``OffsetWatermark``) and the rebalance callback. By
/// default the group uses `cooperative-sticky` assignment (``assignor``) and librdkafka's auto-commit commits the
/// stored offsets every ``autoCommitInterval``.
public struct KafkaConsumerConfiguration: Sendable, CustomStringConvertible {
    /// How the group's leader spreads partitions over members (`partition.assignment.strategy`).
    public enum Assignor: String, Sendable, CaseIterable {
        /// Eager: every rebalance takes all partitions from every member and hands them out again.
        case range
        /// Eager, partitions dealt out one by one.
        case roundrobin
        /// Incremental (KIP-429): a rebalance moves only the partitions that change owner; the others
        /// keep being consumed throughout.
        case cooperativeSticky = "cooperative-sticky"
    }

    /// Where the consumer reads from when its group has no committed offset for a partition.
    public struct StartOffset: Sendable, Hashable {
        let rawValue: String
        /// The oldest retained message (`auto.offset.reset=earliest`), so nothing is skipped.
        public static let earliest = StartOffset(rawValue: "earliest")
        /// Only messages produced from now on (`auto.offset.reset=latest`).
        public static let latest = StartOffset(rawValue: "latest")
    }

    /// `bootstrap.servers`: `host:port` pairs, comma-separated.
    public var bootstrapServers: String
    /// `group.id`.
    public var groupID: String
    /// The topics the group subscribes to.
    public var topics: [String]
    /// `group.instance.id`: static membership. A restarted member with the same id takes its
    /// partitions back without a rebalance, within ``sessionTimeout``.
    public var groupInstanceID: String?
    /// `client.id`, shown in broker logs.
    public var clientID = "pushline"
    /// `auto.offset.reset`.
    public var startOffset = StartOffset.earliest
    /// `auto.commit.interval.ms`: how often stored offsets are committed.
    public var autoCommitInterval = Duration.seconds(5)
    /// `partition.assignment.strategy`.
    public var assignor = Assignor.cooperativeSticky
    /// `session.timeout.ms`: how long the group waits for a silent member before reassigning its
    /// partitions. 10 s, not librdkafka's 45: a crashed worker's partitions stand still this long,
    /// and a restart with the same ``groupInstanceID`` inside it takes them back at once. Brokers
    /// accept 6 s to 30 min by default (`group.min/max.session.timeout.ms`).
    public var sessionTimeout = Duration.seconds(10)
    /// `heartbeat.interval.ms`; nil: a third of ``sessionTimeout``, at most 3 s, so a member misses
    /// two heartbeats before its session ends, whatever the session timeout.
    public var heartbeatInterval: Duration?
    /// `max.poll.interval.ms`: the longest allowed gap between two ``KafkaConsumer/poll(maxMessages:timeout:first:)`` calls.
    public var maxPollInterval = Duration.seconds(300)
    /// `statistics.interval.ms`: how often ``KafkaConsumer/lag`` is refreshed; `nil` turns statistics off.
    public var statisticsInterval: Duration?
    /// `reconnect.backoff.max.ms`: the longest wait between two attempts to reach a broker that is
    /// down. 1 s, not librdkafka's 10: once a broker is back, fetching resumes within about a second.
    public var reconnectBackoffMax = Duration.seconds(1)
    /// Any other librdkafka property (security, SASL, SSL, fetch sizes…), applied last so it wins over
    /// the typed fields above. `enable.auto.offset.store` is refused.
    public var additionalProperties: [String: String] = [:]

    public init(bootstrapServers: String, groupID: String, topics: [String]) {
        self.bootstrapServers = bootstrapServers
        self.groupID = groupID
        self.topics = topics
    }

    /// Every property as librdkafka sees it, secrets redacted.
    public var description: String {
        (try? properties().description) ?? "invalid: \(additionalProperties.keys.sorted())"
    }

    func properties() throws(KafkaError) -> RDKafkaProperties {
        if additionalProperties["enable.auto.offset.store"] != nil {
            throw KafkaError.configuration(
                "enable.auto.offset.store cannot be set: offsets are stored only at each partition's watermark")
        }
        var properties = RDKafkaProperties([
            "bootstrap.servers": bootstrapServers,
            "group.id": groupID,
            "client.id": clientID,
            "enable.auto.offset.store": "false",
            "enable.auto.commit": "true",
            "auto.commit.interval.ms": String(autoCommitInterval.wholeMilliseconds),
            "auto.offset.reset": startOffset.rawValue,
            "partition.assignment.strategy": assignor.rawValue,
            "session.timeout.ms": String(sessionTimeout.wholeMilliseconds),
            "heartbeat.interval.ms": String((heartbeatInterval ?? min(.seconds(3), sessionTimeout / 3)).wholeMilliseconds),
            "max.poll.interval.ms": String(maxPollInterval.wholeMilliseconds),
            "reconnect.backoff.max.ms": String(reconnectBackoffMax.wholeMilliseconds),
        ])
        properties["group.instance.id"] = groupInstanceID
        properties["statistics.interval.ms"] = statisticsInterval.map { String($0.wholeMilliseconds) }
        properties.merge(additionalProperties)
        return properties
    }
}
