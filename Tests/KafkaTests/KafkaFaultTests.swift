import Kafka
import PushlineTestKit
import Testing

@Suite("Kafka under faults", .timeLimit(.minutes(2)))
struct KafkaFaultTests {
    @Test("brokersUp: 0 while every broker is down, back above 0 once they are up")
    func brokersUpFollowsTheCluster() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["watched": 3])
            let consumer = try cluster.consumer(group: "watchers", topics: ["watched"]) { $0.statisticsInterval = .milliseconds(100) }
            func poll(until what: String, _ done: (Int?) -> Bool) throws {
                try Deadline.wait(.seconds(30), for: "\(what) (brokers up: \(String(describing: consumer.brokersUp)))") {
                    _ = consumer.poll(maxMessages: 10, timeout: .milliseconds(50))  // statistics are served by polling
                    return done(consumer.brokersUp)
                }
            }
            try poll(until: "a connected broker") { ($0 ?? 0) > 0 }
            for broker in 1...3 { try cluster.mock.setBrokerDown(Int32(broker)) }
            try poll(until: "no broker up") { $0 == 0 }
            for broker in 1...3 { try cluster.mock.setBrokerUp(Int32(broker)) }
            try poll(until: "a broker up again") { ($0 ?? 0) > 0 }
            try consumer.close()
        }
    }

    @Test("a broker taken down and brought back loses nothing, for the producer or the consumer")
    func brokerDownAndUp() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["resilient": 6])
            let consumer = try cluster.consumer(group: "survivors", topics: ["resilient"])
            let reports = EventLog<KafkaDeliveryReport>()
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.mock.bootstrapServers)) { event in
                if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
            }
            func send(_ prefix: String) throws {
                _ = try producer.send((0..<100).map { KafkaProducerMessage(topic: "resilient", key: Array("k\($0)".utf8), value: Array("\(prefix)\($0)".utf8)) })
            }
            var values: Set<String> = []
            try send("before")
            values.formUnion(try consume(consumer, until: "the first 100 messages") { $0.count >= 100 }.map(text))

            try cluster.mock.setBrokerDown(2)
            try send("during")
            for _ in 0..<10 { values.formUnion(consumer.poll(maxMessages: 500, timeout: .milliseconds(100)).map(text)) }
            try cluster.mock.setBrokerUp(2)
            try send("after")

            try Deadline.wait(for: "300 delivery reports") { reports.count == 300 }
            try producer.close()
            #expect(reports.all.allSatisfy { (try? $0.result.get()) != nil })
            values.formUnion(try consume(consumer, until: "all 300 messages") { more in
                values.union(more.map(text)).count == 300
            }.map(text))
            let expected = ["before", "during", "after"].flatMap { prefix in (0..<100).map { "\(prefix)\($0)" } }
            #expect(values == Set(expected))
            try consumer.close()
        }
    }

    @Test("injected retryable produce errors are retried: everything arrives once")
    func retryableProduceErrors() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["flaky": 3])
            cluster.mock.pushRequestErrors([.notLeaderForPartition, .requestTimedOut, .notEnoughReplicas, .leaderNotAvailable],
                                           for: .produce)
            let reports = try cluster.produce(50, to: "flaky", partitions: 3)
            #expect(reports.allSatisfy { (try? $0.result.get()) != nil })
            let consumer = try cluster.consumer(group: "steady", topics: ["flaky"])
            let received = try consume(consumer, until: "50 messages") { $0.count >= 50 }
            #expect(received.map(text).sorted() == (0..<50).map { "m\($0)" }.sorted())
            try consumer.close()
        }
    }

    @Test("an injected permanent produce error fails the delivery report with that code, not retryable")
    func permanentProduceError() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["guarded": 1])
            cluster.mock.pushRequestErrors([.topicAuthorizationFailed], for: .produce)
            let report = try #require(try cluster.produce(1, to: "guarded", partitions: 1).first)
            guard case .failure(let error) = report.result else {
                Issue.record("the message was delivered despite the injected error")
                return
            }
            #expect(error.code == .topicAuthorizationFailed)
            #expect(!error.isRetryable)
            #expect(!error.isPermanent, "about the topic, not the record: it may pass")
        }
    }

    @Test("a record the broker refuses for what it is (MSG_SIZE_TOO_LARGE, INVALID_RECORD) fails its report as permanent",
          arguments: [KafkaError.Code.messageSizeTooLarge, .invalidRecord])
    func recordRefusedForGood(code: KafkaError.Code) async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["refusing": 1])
            cluster.mock.pushRequestErrors([code], for: .produce)
            let report = try #require(try cluster.produce([KafkaProducerMessage(topic: "refusing", key: Array("k".utf8),
                                                                                value: Array("refused".utf8))]).first)
            guard case .failure(let error) = report.result else {
                Issue.record("the message was delivered despite the injected error")
                return
            }
            #expect(error.code == code)
            #expect(error.isPermanent && !error.isRetryable)
            let handedBack = try #require(report.refusedMessage, "a failed report hands its message back")
            #expect(handedBack.topic == "refusing" && handedBack.partition == 0)
            #expect(handedBack.key == Array("k".utf8) && handedBack.value == Array("refused".utf8))
        }
    }

    @Test("a record over the producer's message.max.bytes fails at produce time, before any broker: MSG_SIZE_TOO_LARGE, permanent")
    func recordOverProducerLimit() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["bounded": 1])
            var configuration = KafkaProducerConfiguration(bootstrapServers: cluster.mock.bootstrapServers)
            configuration.additionalProperties["message.max.bytes"] = "2000"
            let reports = EventLog<KafkaDeliveryReport>()
            let producer = try KafkaProducer(configuration: configuration) { event in
                if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
            }
            _ = try producer.send([KafkaProducerMessage(topic: "bounded", value: [UInt8](repeating: 1, count: 3000)),
                                   KafkaProducerMessage(topic: "bounded", value: [UInt8](repeating: 2, count: 100))])
            try Deadline.wait(for: "2 delivery reports") { reports.count == 2 }
            try producer.close()
            let results = reports.all.sorted { $0.id < $1.id }.map(\.result)
            guard case .failure(let error) = results[0] else {
                Issue.record("a 3,000-byte record passed a 2,000-byte limit")
                return
            }
            #expect(error.code == .messageSizeTooLarge && error.isPermanent)
            #expect(reports.all.sorted { $0.id < $1.id }[0].refusedMessage?.value == [UInt8](repeating: 1, count: 3000),
                    "refused at produce time: the message is handed back as it was sent")
            if case .failure(let error) = results[1] { Issue.record("the small record failed: \(error)") }
            #expect(reports.all.sorted { $0.id < $1.id }[1].refusedMessage == nil, "a delivered message is not handed back")
        }
    }

    @Test("injected fetch errors are recovered from: every message is consumed")
    func fetchErrors() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["fetched": 2])
            try cluster.produce(30, to: "fetched", partitions: 2)
            cluster.mock.pushRequestErrors([.notLeaderForPartition, .requestTimedOut, .unknownTopicOrPartition], for: .fetch)
            let consumer = try cluster.consumer(group: "fetchers", topics: ["fetched"])
            let received = try consume(consumer, until: "30 messages") { Set($0.map(text)).count >= 30 }
            #expect(Set(received.map(text)) == Set((0..<30).map { "m\($0)" }))
            try consumer.close()
        }
    }

    @Test("an injected commit error is reported as retryable, and the next commit stores the watermark")
    func commitErrors() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["ledger": 1])
            try cluster.produce(10, to: "ledger", partitions: 1)
            let consumer = try cluster.consumer(group: "bookkeepers", topics: ["ledger"]) { $0.autoCommitInterval = .seconds(3600) }
            _ = try consume(consumer, until: "10 messages") { $0.count >= 10 }
            cluster.mock.pushRequestErrors([.rebalanceInProgress], for: .offsetCommit)
            let failure = #expect(throws: KafkaError.self) { try consumer.commit() }
            #expect(failure?.isRetryable == true)
            try consumer.commit()
            let partition = KafkaTopicPartition(topic: "ledger", partition: 0)
            #expect(try consumer.committedOffsets(for: [partition], timeout: .seconds(10))[partition] == 10)
            try consumer.close()
        }
    }

    @Test("a lost assignment commits nothing: the partition comes back and resumes from the last commit")
    func lostAssignment() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["fragile": 1])
            try cluster.produce(10, to: "fragile", partitions: 1)
            let events = EventLog<KafkaConsumerEvent>()
            let consumer = try cluster.consumer(group: "forgetful", topics: ["fragile"], events: events) {
                $0.autoCommitInterval = .seconds(3600)
            }
            let received = try consume(consumer, until: "10 messages", completing: false) { $0.count >= 10 }
            consumer.complete(received.filter { $0.offset < 5 })
            try consumer.commit()  // 5 is committed
            consumer.complete(received.filter { $0.offset >= 5 })  // 10 is stored, not committed
            // The coordinator forgets the member: librdkafka treats the assignment as lost.
            cluster.mock.pushRequestErrors([.unknownMemberID], for: .heartbeat)
            let again = try consume(consumer, until: "the lost partition to be assigned again and redelivered") { !$0.isEmpty }
            #expect(events.all.contains { if case .lost = $0 { true } else { false } })
            #expect(again.first?.offset == 5)
            try consumer.close()
        }
    }
}
