import Synchronization

/// What other threads may ask of a running worker, and tell it: stop. Written by the worker's
/// thread, read anywhere (`/readyz`).
final class WorkerStatus: Sendable {
    /// Set by ``Worker/stop()``.
    let stopping = Atomic<Bool>(false)
    /// The consumer has joined its group (an assignment arrived, possibly empty).
    let joined = Atomic<Bool>(false)
    /// Work waits for Redis (an outage under the `pause` policy).
    let waitingForRedis = Atomic<Bool>(false)
    /// A pool the worker sends to has its circuit open (APNs out): partitions paused, not ready.
    let apnsCircuitOpen = Atomic<Bool>(false)
    /// The consumer reaches no Kafka broker (from its statistics, every `lagInterval`).
    let kafkaUnreachable = Atomic<Bool>(false)
    /// A pool the worker sends to cannot connect (no connection ready, its latest connect failed;
    /// checked every `lagInterval`).
    let apnsUnreachable = Atomic<Bool>(false)
    /// The worker's thread has ended.
    let ended = Atomic<Bool>(false)

    var isReady: Bool {
        joined.load(ordering: .relaxed) && !stopping.load(ordering: .relaxed) && !waitingForRedis.load(ordering: .relaxed)
            && !apnsCircuitOpen.load(ordering: .relaxed) && !kafkaUnreachable.load(ordering: .relaxed)
            && !apnsUnreachable.load(ordering: .relaxed)
            && !ended.load(ordering: .relaxed)
    }
}
