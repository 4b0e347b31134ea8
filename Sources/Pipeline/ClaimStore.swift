import Redis

/// Where the worker keeps its idempotency claims, one per (intent, device): ``IdempotencyStore`` in
/// Redis, or ``InMemoryIdempotencyStore`` in this process (`pushline demo` without redis-server).
/// Both follow docs/pipeline-stores.md and pass the same behaviour tests. Failures are
/// ``RedisError``s, which the worker's outage handling understands; the in-memory store never fails.
public protocol ClaimStore {
    /// Who holds this store's claims (a worker's random id), or nil for a plain `pending`.
    var owner: String? { get }

    /// Claims every delivery of a batch: claimed, or the state another claim left.
    func claim(_ deliveries: [DeliveryKey]) throws(RedisError) -> [IdempotencyStore.ClaimResult]

    /// Marks `sent` and `failed` for the redelivery horizon and releases `released` (only while it
    /// still holds this store's `pending`), in one round trip.
    func settle(sent: [DeliveryKey], failed: [DeliveryKey], released: [DeliveryKey]) throws(RedisError)
}

extension ClaimStore {
    /// Records acceptances: these deliveries are never sent again within the horizon.
    public func markSent(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(sent: deliveries, failed: [], released: [])
    }

    /// Records permanent failures.
    public func markFailed(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(sent: [], failed: deliveries, released: [])
    }

    /// Gives claims back after retryable failures, so a later attempt can claim them.
    public func release(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(sent: [], failed: [], released: deliveries)
    }
}
