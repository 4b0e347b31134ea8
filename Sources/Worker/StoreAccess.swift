import Pipeline
import Redis

/// How each of a worker's threads that runs ``DeliveryStages`` (the loop, the ``RedisStage``) gets
/// its stores: over a Redis connection of its own (a connection is confined to one thread), or the
/// worker's one set of in-memory stores, which its threads share.
enum StoreAccess: Sendable {
    case redis(RedisConfiguration)
    case inMemory(InMemoryIdempotencyStore, InMemoryCollapseWindow, InMemoryTokenRegistry, InMemoryRollingWindows, InMemoryThrottle,
                  InMemoryDeferredStore)

    /// - Parameter owner: the worker's id, written into its `pending` claims.
    init(_ stores: WorkerConfiguration.Stores, idempotency: IdempotencyStore.Configuration, deferred: DeferredStore.Configuration,
         owner: String) {
        switch stores {
        case .redis(var redis):
            // The worker retries Redis itself, on its own schedule: a call to a server that is down
            // fails at once instead of running the connection's reconnect backoff.
            redis.reconnect = .never
            self = .redis(redis)
        case .inMemory:
            self = .inMemory(InMemoryIdempotencyStore(configuration: idempotency, owner: owner), InMemoryCollapseWindow(), InMemoryTokenRegistry(),
                             InMemoryRollingWindows(), InMemoryThrottle(), InMemoryDeferredStore(configuration: deferred))
        }
    }
}
