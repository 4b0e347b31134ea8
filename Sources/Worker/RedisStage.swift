import Foundation
import Pipeline
import Redis
import Runtime
import Synchronization

/// The worker's claim and record round trips, run in order on a thread of their own with a Redis
/// connection of their own, so that the loop's thread goes on polling, taking plans, producing and
/// completing while Redis answers. Results come back through an ``Inbox``.
///
/// The set of deliveries this worker has claimed and not yet recorded lives here, on this thread,
/// where claims and records happen in order: a claim that finds this worker's own `pending` for a
/// delivery in that set (another copy of it) defers that copy.
final class RedisStage: Sendable {
    enum Job: Sendable {
        case claim([PlannedDelivery])
        case record([SentDelivery])
    }

    enum Outcome: Sendable {
        case claimed(DeliveryStages.Claims)
        case recorded([SentDelivery], tokenEvents: [WorkerOutput])
        /// The job did not run to its end; a retryable ``RedisError`` means Redis is out and the
        /// job may run again as a whole.
        case failed(Job, any Error)
    }

    private let jobs: Inbox<Job>
    private let jobArrived = Runtime.Semaphore()
    private let outcomes: Inbox<Outcome>
    private let stopping = Atomic<Bool>(false)
    private let stopped = Runtime.Semaphore()

    /// Starts the thread; it connects to Redis when its first job comes.
    init(configuration: WorkerConfiguration, planner: DeliveryPlanner, redis: RedisConfiguration, owner: String, wakeUp: Runtime.Semaphore) {
        jobs = Inbox(wakeUp: jobArrived)
        outcomes = Inbox(wakeUp: wakeUp)
        let thread = Thread { [self] in
            run(configuration: configuration, planner: planner, redis: redis, owner: owner)
        }
        thread.name = "pushline-redis-\(configuration.pipelineName)"
        thread.start()
    }

    /// Queues a job behind the others.
    func submit(_ job: Job) {
        jobs.append(contentsOf: [job])
    }

    /// Every outcome since the last call, in the order the jobs ran.
    func take() -> [Outcome] {
        outcomes.take()
    }

    /// Ends the thread once the job in hand is done; queued jobs are dropped. Waits for it.
    func stop() {
        stopping.store(true, ordering: .releasing)
        jobArrived.signal()
        stopped.wait()
        stopped.signal()  // a second stop() returns at once
    }

    private func run(configuration: WorkerConfiguration, planner: DeliveryPlanner, redis: RedisConfiguration, owner: String) {
        var stages: DeliveryStages?
        var claimed = Set<DeliveryKey>()
        while !stopping.load(ordering: .acquiring) {
            jobArrived.wait()
            for job in jobs.take() where !stopping.load(ordering: .acquiring) {
                do {
                    if stages == nil {
                        stages = DeliveryStages(configuration: configuration, planner: planner,
                                                redis: try RedisConnection(configuration: redis), owner: owner)
                    }
                    outcomes.append(contentsOf: [try perform(job, stages: stages!, claimed: &claimed)])
                } catch {
                    outcomes.append(contentsOf: [.failed(job, error)])
                }
            }
        }
        stopped.signal()
    }

    private func perform(_ job: Job, stages: DeliveryStages, claimed: inout Set<DeliveryKey>) throws(RedisError) -> Outcome {
        switch job {
        case .claim(let planned):
            let claims = try stages.claim(planned, inFlight: claimed)
            for delivery in claims.admitted { claimed.insert(delivery.key) }
            return .claimed(claims)
        case .record(let sent):
            let tokenEvents = try stages.record(sent)
            for delivery in sent where delivery.planned.holdsClaim { claimed.remove(delivery.planned.key) }
            return .recorded(sent, tokenEvents: tokenEvents)
        }
    }
}
