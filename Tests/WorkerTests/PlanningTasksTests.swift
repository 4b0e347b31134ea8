import Kafka
import Testing
@testable import Worker

/// The order in which a poll's messages are handed to the planners: each partition's own task,
/// the partitions with the fewest messages first, so a transactional partition's few are not
/// planned behind a bulk partition's hundreds.
@Suite("PlanningTasks")
struct PlanningTasksTests {
    private func polled(_ partitions: [Int32]) -> [PlanningTasks.PolledMessage] {
        partitions.enumerated().map { index, partition in
            (KafkaConsumerMessage(topicPartition: KafkaTopicPartition(topic: "intents", partition: partition), offset: Int64(index),
                                  key: nil, value: nil), index)
        }
    }

    private func partitions(_ groups: [[PlanningTasks.PolledMessage]]) -> [[Int32]] {
        groups.map { $0.map(\.message.topicPartition.partition) }
    }

    @Test("the partition with the fewest messages is planned first, each partition's in their order")
    func fewestFirst() {
        let groups = PlanningTasks.byPartition(polled([0, 0, 3, 0, 1, 0, 1, 3, 0, 1, 2, 0]))
        #expect(partitions(groups) == [[2], [3, 3], [1, 1, 1], [0, 0, 0, 0, 0, 0]])
        #expect(groups.map { $0.map(\.entry) } == [[10], [2, 7], [4, 6, 9], [0, 1, 3, 5, 8, 11]])
    }

    @Test("partitions with as many messages keep the order the poll took them in")
    func tiesKeepThePollsOrder() {
        #expect(partitions(PlanningTasks.byPartition(polled([2, 0, 1, 0, 2, 1]))) == [[2, 2], [0, 0], [1, 1]])
    }

    @Test("one partition's messages stay one task")
    func onePartitionIsOneTask() {
        #expect(partitions(PlanningTasks.byPartition(polled([1, 1, 1]))) == [[1, 1, 1]])
        #expect(PlanningTasks.byPartition([]).isEmpty)
    }
}
