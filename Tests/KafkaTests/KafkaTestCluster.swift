import Kafka
import PushlineTestKit

/// A three-broker mock cluster for one test, with the client settings the tests share: short
/// heartbeats and sessions so group changes settle quickly. Every wait has a deadline.
final class KafkaTestCluster: Sendable {
    let mock: KafkaMockCluster

    /// Starts the cluster and creates `topics` (name → partitions), replicated on every broker.
    init(topics: [String: Int]) throws {
        mock = try KafkaMockCluster(brokers: 3)
        for (name, partitions) in topics {
            try mock.createTopic(name, partitions: partitions, replicationFactor: 3)
        }
    }

    func consumerConfiguration(group: String, topics: [String]) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: mock.bootstrapServers, groupID: group, topics: topics)
        configuration.heartbeatInterval = .milliseconds(100)
        configuration.sessionTimeout = .seconds(3)
        configuration.autoCommitInterval = .milliseconds(200)
        return configuration
    }

    func consumer(group: String, topics: [String], events: EventLog<KafkaConsumerEvent>? = nil,
                  adjust: (inout KafkaConsumerConfiguration) -> Void = { _ in }) throws -> KafkaConsumer {
        var configuration = consumerConfiguration(group: group, topics: topics)
        adjust(&configuration)
        return try KafkaConsumer(configuration: configuration) { event in events?.append(event) }
    }

    /// Sends `messages` through a fresh producer and waits for every delivery report.
    func produce(_ messages: [KafkaProducerMessage], timeout: Duration = .seconds(30)) throws -> [KafkaDeliveryReport] {
        let reports = EventLog<KafkaDeliveryReport>()
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: mock.bootstrapServers)) { event in
            if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
        }
        _ = try producer.send(messages)
        try Deadline.wait(timeout, for: "\(messages.count) delivery reports") { reports.count == messages.count }
        try producer.close()
        return reports.all
    }

    /// Sends `count` messages with values `"<prefix><i>"`, message i to partition `i % partitions`.
    @discardableResult
    func produce(_ count: Int, to topic: String, partitions: Int, prefix: String = "m") throws -> [KafkaDeliveryReport] {
        try produce((0..<count).map { index in
            KafkaProducerMessage(topic: topic, partition: Int32(index % partitions), value: Array("\(prefix)\(index)".utf8))
        })
    }
}

/// Polls `consumer` until `enough` holds for everything received, or the deadline passes; completes
/// each batch's messages unless `completing` is false. Returns everything received.
func consume(_ consumer: KafkaConsumer, until what: String, timeout: Duration = .seconds(30), completing: Bool = true,
             _ enough: ([KafkaConsumerMessage]) -> Bool) throws -> [KafkaConsumerMessage] {
    let deadline = Deadline(after: timeout)
    var received: [KafkaConsumerMessage] = []
    while !enough(received) {
        try deadline.check(waitingFor: what)
        let batch = consumer.poll(maxMessages: 500, timeout: .milliseconds(100))
        if completing { consumer.complete(batch) }
        received += batch
    }
    return received
}

/// The text of a message's value.
func text(_ message: KafkaConsumerMessage) -> String {
    String(decoding: message.value ?? [], as: UTF8.self)
}
