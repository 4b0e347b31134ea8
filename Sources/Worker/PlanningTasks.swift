import Kafka
import Runtime

/// Plans polled messages on Swift's cooperative pool, off the worker's thread, and hands the plans
/// back through an ``Inbox``. A `user` recipient is not looked up here: its message comes back as
/// ``DeliveryPlanner/Plan/needsRegistry(_:)``, decoded, for the worker's thread, which owns the Redis connection.
final class PlanningTasks: Sendable {
    /// One message's plan.
    struct Planned: Sendable {
        let message: KafkaConsumerMessage
        let entry: MessageLedger.EntryID
        let plan: DeliveryPlanner.Plan
    }

    private let planner: DeliveryPlanner
    private let planned: Inbox<Planned>

    init(planner: DeliveryPlanner, wakeUp: Semaphore) {
        self.planner = planner
        planned = Inbox(wakeUp: wakeUp)
    }

    /// Plans the messages without waiting; the plans arrive through ``take()``.
    func start(_ messages: [(message: KafkaConsumerMessage, entry: MessageLedger.EntryID)]) {
        Task.detached { [self] in
            // One catalog snapshot for the batch: a reload applies from the next one.
            let enricher = planner.catalog.enricher
            // Without a registry planning cannot fail.
            let plans = messages.map { message, entry in
                switch planner.decode(message, entry: entry) {
                case .undecodable(let plan):
                    Planned(message: message, entry: entry, plan: plan)
                case .intent(let intent, let release):
                    Planned(message: message, entry: entry,
                            plan: (try? planner.plan(intent, release: release, message: message, entry: entry, enricher: enricher, registry: nil))
                                ?? .needsRegistry(intent))
                }
            }
            planned.append(contentsOf: plans)
        }
    }

    /// Every plan made since the last call.
    func take() -> [Planned] {
        planned.take()
    }
}
