import Pipeline
import Redis
import Runtime
import Synchronization

/// The token registry's round trips for `user` recipients, run in order on a thread of their own
/// with a Redis connection of their own, so that the loop's thread never waits for them: it goes on
/// taking answered sends and producing recorded outcomes while the registry answers. (On the loop's
/// thread, one slow answer held every outcome of that moment: docs/BENCHMARKS.md, "The outcome's
/// way back".)
///
/// A lookup's messages go on from here to the ``PlanningTasks`` with what the registry found, and
/// come back to the loop as their plans (``PlanningTasks/takeWithRegistry()``); a lookup that fails
/// comes back through ``takeFailed()`` with its messages, for the state machine
/// (``WorkerLoop/StateMachine/registryFailed(_:_:now:)``).
final class RegistryLookups: Sendable {
    /// A lookup that did not run to its end, with its messages; a retryable ``RedisError`` means
    /// Redis is out and the messages wait for it.
    struct Failure: Sendable {
        let messages: [WorkerLoop.MessageToPlan]
        let error: RedisError
    }

    private let lookups: Inbox<[WorkerLoop.MessageToPlan]>
    private let lookupArrived = Runtime.Semaphore()
    private let failed: Inbox<Failure>
    private let stopping = Atomic<Bool>(false)
    private let thread = ServiceThread()

    /// Starts the thread; it connects to Redis (with Redis stores) when its first lookup comes.
    init(configuration: WorkerConfiguration, planner: DeliveryPlanner, stores: StoreAccess, owner: String, planning: PlanningTasks,
         wakeUp: Runtime.Semaphore) {
        lookups = Inbox(wakeUp: lookupArrived)
        failed = Inbox(wakeUp: wakeUp)
        thread.start(name: "pushline-registry-\(configuration.pipelineName)") { [self] in
            run(configuration: configuration, planner: planner, stores: stores, owner: owner, planning: planning)
        }
    }

    /// Queues a lookup of the users of `messages` (decoded, each addressed to a user) behind the others.
    func submit(_ messages: [WorkerLoop.MessageToPlan]) {
        lookups.append(contentsOf: [messages])
    }

    /// Every lookup that failed since the last call, in the order they ran.
    func takeFailed() -> [Failure] {
        failed.take()
    }

    /// Ends the thread once the lookup in hand is done; queued lookups are dropped. Waits for it.
    func stop() {
        stopping.store(true, ordering: .releasing)
        lookupArrived.signal()
        // The body throws nothing; a second stop() returns at once.
        try? thread.join()
    }

    private func run(configuration: WorkerConfiguration, planner: DeliveryPlanner, stores: StoreAccess, owner: String,
                     planning: PlanningTasks) {
        var stages: DeliveryStages?
        while !stopping.load(ordering: .acquiring) {
            _ = lookupArrived.wait(milliseconds: 1000)
            // The lookups that queued up while one ran go together: one round trip for all their users.
            let messages = lookups.take().flatMap { $0 }
            guard !messages.isEmpty, !stopping.load(ordering: .acquiring) else { continue }
            do throws(RedisError) {
                if stages == nil {
                    stages = try DeliveryStages(configuration: configuration, planner: planner, stores: stores, owner: owner)
                }
                planning.start(messages, found: try stages!.recipients(of: messages))
            } catch {
                failed.append(contentsOf: [Failure(messages: messages, error: error)])
            }
        }
    }
}
