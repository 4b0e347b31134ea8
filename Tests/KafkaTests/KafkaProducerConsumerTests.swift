import Kafka
import PushlineTestKit
import Testing

@Suite("Kafka producer and consumer", .timeLimit(.minutes(2)))
struct KafkaProducerConsumerTests {
    @Test("produced messages are consumed with their keys and values, and each has exactly one delivery report")
    func produceAndConsume() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["orders": 4])
            let messages = (0..<100).map { index in
                KafkaProducerMessage(topic: "orders", key: Array("user-\(index % 7)".utf8), value: Array("order \(index)".utf8))
            }
            let reports = try cluster.produce(messages)
            #expect(Set(reports.map(\.id)).count == 100)
            #expect(reports.allSatisfy { (try? $0.result.get()) != nil })
            let consumer = try cluster.consumer(group: "readers", topics: ["orders"])
            let received = try consume(consumer, until: "100 messages") { $0.count >= 100 }
            #expect(received.count == 100)
            #expect(Set(received.map(text)) == Set(messages.map { String(decoding: $0.value!, as: UTF8.self) }))
            for message in received {
                let index = Int(text(message).dropFirst("order ".count))!
                #expect(message.key == Array("user-\(index % 7)".utf8))
            }
            // Delivery reports and consumed messages agree on where each message landed.
            let landed = Set(reports.map { "\($0.topicPartition)@\(try! $0.result.get())" })
            #expect(landed == Set(received.map { "\($0.topicPartition)@\($0.offset)" }))
            try consumer.close()
        }
    }

    @Test("a text key is produced as its UTF-8 bytes, and reads as them before it is sent; bytes set as the key replace it")
    func textKeys() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["keyed": 2])
            // Small and heap strings, one not ASCII, and no key at all.
            let keys: [String?] = ["i-1", "intent-0000000000000000000000000002", "Zürich-3", nil]
            let messages = keys.enumerated().map { index, key in
                KafkaProducerMessage(topic: "keyed", textKey: key, value: Array("value \(index)".utf8))
            }
            #expect(messages.map(\.key) == keys.map { $0.map { Array($0.utf8) } })
            var rekeyed = messages[2]
            rekeyed.key = [0xFF, 0x00]
            #expect(rekeyed.key == [0xFF, 0x00], "bytes set as the key replace the text")
            let reports = try cluster.produce(messages)
            #expect(reports.allSatisfy { (try? $0.result.get()) != nil })
            let consumer = try cluster.consumer(group: "readers", topics: ["keyed"])
            let received = try consume(consumer, until: "4 messages") { $0.count >= 4 }
            #expect(received.count == 4)
            for message in received {
                let index = Int(text(message).dropFirst("value ".count))!
                #expect(message.key == keys[index].map { Array($0.utf8) })
            }
            try consumer.close()
        }
    }

    @Test("delivery reports carry the id send returned for each message")
    func reportsMatchIDs() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["ids": 1])
            let reports = EventLog<KafkaDeliveryReport>()
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.mock.bootstrapServers)) { event in
                if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
            }
            let first = try producer.send((0..<10).map { KafkaProducerMessage(topic: "ids", value: [UInt8($0)]) })
            let second = try producer.send((10..<20).map { KafkaProducerMessage(topic: "ids", value: [UInt8($0)]) })
            try producer.close()
            #expect(Set(first).isDisjoint(with: second))
            // One partition, so offsets follow send order: the report for the n-th id has offset n.
            let offsetByID = Dictionary(uniqueKeysWithValues: reports.all.map { ($0.id, try! $0.result.get()) })
            for (index, id) in (first + second).enumerated() {
                #expect(offsetByID[id] == Int64(index))
            }
        }
    }

    @Test("topics looked up ahead report their partition counts, and messages to them are delivered")
    func lookUpTopicsAhead() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["outcomes": 3, "dead-letters": 1])
            let reports = EventLog<KafkaDeliveryReport>()
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.mock.bootstrapServers)) { event in
                if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
            }
            #expect(producer.lookUp(topics: ["outcomes", "dead-letters"], timeout: .seconds(10)) == ["outcomes": 3, "dead-letters": 1])
            let ids = try producer.send((0..<30).map { KafkaProducerMessage(topic: "outcomes", value: Array("o\($0)".utf8)) })
            try producer.close()
            #expect(reports.all.map(\.id).sorted() == ids)
            #expect(reports.all.allSatisfy { (try? $0.result.get()) != nil })
        }
    }

    @Test("looking up topics on a cluster that does not answer finds none and fails nothing")
    func lookUpWithoutCluster() async throws {
        try await DedicatedThread.run {
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1")) { _ in }
            #expect(producer.lookUp(topics: ["outcomes", "dead-letters"], timeout: .milliseconds(300)).isEmpty)
        }
    }

    @Test("a message librdkafka cannot place gets a failed report naming the partition")
    func unknownPartitionFails() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["small": 2])
            let reports = try cluster.produce([KafkaProducerMessage(topic: "small", partition: 9, value: Array("x".utf8))])
            let report = try #require(reports.first)
            #expect(throws: KafkaError.self) { try report.result.get() }
            if case .failure(let error) = report.result {
                #expect(error.code == .unknownPartition)
                #expect(error.topicPartition == KafkaTopicPartition(topic: "small", partition: 9))
            }
        }
    }

    @Test("a full queue makes send wait for room: a batch ten times the queue's size is delivered whole")
    func sendWaitsForRoom() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["narrow": 2])
            let reports = EventLog<KafkaDeliveryReport>()
            var configuration = KafkaProducerConfiguration(bootstrapServers: cluster.mock.bootstrapServers)
            configuration.additionalProperties = ["queue.buffering.max.messages": "20"]
            let producer = try KafkaProducer(configuration: configuration) { event in
                if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
            }
            let ids = try producer.send((0..<200).map { KafkaProducerMessage(topic: "narrow", value: Array("n\($0)".utf8)) })
            try producer.close()
            #expect(Set(reports.all.map(\.id)) == Set(ids))
            #expect(reports.all.allSatisfy { (try? $0.result.get()) != nil })
        }
    }

    @Test("a queue still full after the enqueue timeout fails those messages' reports as retryable, queue full")
    func queueFullFails() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["jammed": 1])
            let reports = EventLog<KafkaDeliveryReport>()
            var configuration = KafkaProducerConfiguration(bootstrapServers: cluster.mock.bootstrapServers)
            configuration.linger = .seconds(1)  // the first message waits in the queue, keeping it full
            configuration.enqueueTimeout = .milliseconds(50)
            configuration.additionalProperties = ["queue.buffering.max.messages": "1"]
            let producer = try KafkaProducer(configuration: configuration) { event in
                if case .deliveryReports(let batch) = event { reports.append(contentsOf: batch) }
            }
            let ids = try producer.send((0..<3).map { KafkaProducerMessage(topic: "jammed", value: [UInt8($0)]) })
            try producer.close()
            let byID = Dictionary(uniqueKeysWithValues: reports.all.map { ($0.id, $0.result) })
            #expect(byID.count == 3)
            #expect((try? byID[ids[0]]?.get()) == 0)
            for id in ids.dropFirst() {
                guard case .failure(let error) = byID[id] else {
                    Issue.record("\(id) was not refused")
                    continue
                }
                #expect(error.code == .queueFull)
                #expect(error.isRetryable)
            }
        }
    }

    @Test("send after close throws and enqueues nothing")
    func sendAfterClose() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["closed": 1])
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.mock.bootstrapServers)) { _ in }
            try producer.close()
            #expect(throws: KafkaError.self) { try producer.send([KafkaProducerMessage(topic: "closed", value: [1])]) }
        }
    }
}
