import Kafka
import PushlineTestKit
import Testing

/// `KafkaTopicReader` against the mock cluster: ranges read exactly, ends fixed, one message by
/// offset, missing topics and offsets as typed errors, and no group touched.
@Suite("KafkaTopicReader", .timeLimit(.minutes(1)))
struct KafkaTopicReaderTests {
    @Test("reads each partition's range once, in offset order, and stops at the range's end")
    func readsRangesExactly() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["read": 3])
            try cluster.produce(30, to: "read", partitions: 3)
            let reader = try KafkaTopicReader(configuration: KafkaReaderConfiguration(bootstrapServers: cluster.mock.bootstrapServers))
            #expect(try reader.partitions(of: "read") == [0, 1, 2])
            let first = KafkaTopicPartition(topic: "read", partition: 0)
            let second = KafkaTopicPartition(topic: "read", partition: 1)
            #expect(try reader.watermarks(of: first) == 0..<10)
            var read: [KafkaConsumerMessage] = []
            try reader.read([first: 2..<5, second: 0..<10], maxBatch: 4) { read += $0 }
            let values = { (partition: KafkaTopicPartition) in
                read.filter { $0.topicPartition == partition }.map { String(decoding: $0.value ?? [], as: UTF8.self) }
            }
            #expect(values(first) == ["m6", "m9", "m12"])
            #expect(values(second) == (0..<10).map { "m\($0 * 3 + 1)" })
            #expect(read.count == 13)
        }
    }

    @Test("one message by offset; an offset the partition does not hold and a missing topic are typed errors")
    func messageAtOffset() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["single": 1])
            try cluster.produce(3, to: "single", partitions: 1)
            let reader = try KafkaTopicReader(configuration: KafkaReaderConfiguration(bootstrapServers: cluster.mock.bootstrapServers))
            let partition = KafkaTopicPartition(topic: "single", partition: 0)
            #expect(try reader.message(at: 1, of: partition).value == Array("m1".utf8))
            #expect { try reader.message(at: 3, of: partition) } throws: { ($0 as? KafkaError)?.code == .offsetOutOfRange }
            #expect { try reader.partitions(of: "absent") } throws: { ($0 as? KafkaError)?.code == .unknownTopicOrPartition }
            // Looking a topic up did not create it.
            #expect { try reader.partitions(of: "absent") } throws: { ($0 as? KafkaError)?.code == .unknownTopicOrPartition }
        }
    }

    @Test("the reader refuses group settings, and leaves no committed offset behind")
    func touchesNoGroup() async throws {
        try await DedicatedThread.run {
            let cluster = try KafkaTestCluster(topics: ["quiet": 1])
            try cluster.produce(5, to: "quiet", partitions: 1)
            var refused = KafkaReaderConfiguration(bootstrapServers: cluster.mock.bootstrapServers)
            refused.additionalProperties["group.id"] = "pushline-notifications"
            #expect { try KafkaTopicReader(configuration: refused) } throws: { ($0 as? KafkaError)?.code == .invalidArgument }

            let partition = KafkaTopicPartition(topic: "quiet", partition: 0)
            let reader = try KafkaTopicReader(configuration: KafkaReaderConfiguration(bootstrapServers: cluster.mock.bootstrapServers))
            var count = 0
            try reader.read([partition: 0..<5]) { count += $0.count }
            #expect(count == 5)
            let group = try KafkaConsumer(configuration: cluster.consumerConfiguration(group: "pushline-reader", topics: []))
            #expect(try group.committedOffsets(for: [partition], timeout: .seconds(10)).isEmpty)
            try group.close()
        }
    }
}
