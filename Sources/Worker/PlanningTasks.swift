import Kafka
import Pipeline
import Runtime

/// Plans polled messages on Swift's cooperative pool, off the worker's thread, and hands the plans
/// back through an ``Inbox``. A `user` recipient is not looked up here: its message comes back as
/// ``DeliveryPlanner/Plan/needsRegistry(_:)``, decoded, and the ``RegistryLookups`` thread asks the
/// registry for every such message of a turn at once; the messages then come back here to be
/// enriched with what it found (``start(_:found:)``), so that the loop's thread does neither.
final class PlanningTasks: Sendable {
    /// One message's plan.
    struct Planned: Sendable {
        let message: KafkaConsumerMessage
        let entry: MessageLedger.EntryID
        let plan: DeliveryPlanner.Plan
    }

    /// The plans of user-addressed messages planned with the registry's answer, in their order.
    struct PlannedWithRegistry: Sendable {
        let plans: [DeliveryPlanner.Plan]
        let messages: [WorkerLoop.MessageToPlan]
    }

    private let planner: DeliveryPlanner
    private let planned: Inbox<Planned>
    private let plannedWithRegistry: Inbox<PlannedWithRegistry>
    private let tasks = DetachedTasks()

    init(planner: DeliveryPlanner, wakeUp: Semaphore) {
        self.planner = planner
        planned = Inbox(wakeUp: wakeUp)
        plannedWithRegistry = Inbox(wakeUp: wakeUp)
    }

    /// A polled message with its place in the ledger.
    typealias PolledMessage = (message: KafkaConsumerMessage, entry: MessageLedger.EntryID)

    /// Plans the messages without waiting; the plans arrive through ``take()``. Each partition's
    /// messages are planned by a task of their own, started in ``byPartition(_:)``'s order, so that
    /// the few messages of one partition (a transactional lane's, under a bulk backlog) come back
    /// without waiting for the hundreds of another polled with them (docs/worker.md, "A delivery's way").
    /// The tasks of the partitions in `ahead` (those that fed a lane above the lightest) run at a
    /// higher priority: on the pool's queue of that priority, not behind the bulk tasks queued before.
    func start(_ messages: [PolledMessage], ahead: Set<KafkaTopicPartition> = []) {
        for partition in Self.byPartition(messages) {
            startTask(partition, priority: ahead.contains(partition[0].message.topicPartition) ? .high : nil)
        }
    }

    /// A poll's messages by partition, each partition's in their order, the partitions with the
    /// fewest messages first (ties in the order the poll took them).
    static func byPartition(_ messages: [PolledMessage]) -> [[PolledMessage]] {
        var groups: [[PolledMessage]] = []
        var groupOf: [KafkaTopicPartition: Int] = [:]
        // A partition's messages come in runs: a message of the previous one's partition joins its
        // group without a lookup.
        var current: (partition: KafkaTopicPartition, group: Int)?
        for message in messages {
            let partition = message.message.topicPartition
            let group: Int
            if let current, current.partition == partition {
                group = current.group
            } else if let known = groupOf[partition] {
                group = known
            } else {
                group = groups.count
                groupOf[partition] = group
                groups.append([])
            }
            groups[group].append(message)
            current = (partition, group)
        }
        guard groups.count > 1 else { return groups }
        return groups.enumerated().sorted { ($0.element.count, $0.offset) < ($1.element.count, $1.offset) }.map(\.element)
    }

    private func startTask(_ messages: [PolledMessage], priority: TaskPriority?) {
        tasks.start(priority: priority) { [self] in
            // One catalog snapshot for the task: a reload applies from the next one.
            let enricher = planner.catalog.enricher
            let plans = messages.map { message, entry in
                Planned(message: message, entry: entry, plan: planner.plan(message, entry: entry, enricher: enricher))
            }
            planned.append(contentsOf: plans)
        }
    }

    /// Plans user-addressed messages, decoded already, with what the token registry found for their
    /// users (``DeliveryStages/recipients(of:)``), without waiting; the plans arrive through
    /// ``takeWithRegistry()``.
    func start(_ messages: [WorkerLoop.MessageToPlan], found: [UserQuery: UserRecipients]) {
        tasks.start { [self] in
            let plans = planner.plan(messages, found: found, enricher: planner.catalog.enricher)
            plannedWithRegistry.append(contentsOf: [PlannedWithRegistry(plans: plans, messages: messages)])
        }
    }

    /// Every plan made since the last call.
    func take() -> [Planned] {
        planned.take()
    }

    /// Every batch of plans made with the registry's answer since the last call.
    func takeWithRegistry() -> [PlannedWithRegistry] {
        plannedWithRegistry.take()
    }

    /// Waits until every planning task has ended (planning is not cut short: it waits for nothing),
    /// so that none is still enriching or sealing when the process exits. For the worker's stop.
    func stop() {
        tasks.cancelAndWait()
    }
}
