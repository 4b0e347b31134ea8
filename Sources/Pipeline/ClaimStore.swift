import Redis

/// Where the worker keeps its idempotency claims, one per (intent, device), and the recorded
/// watermark of each intents partition: ``IdempotencyStore`` in Redis, or
/// ``InMemoryIdempotencyStore`` in this process (`pushline-dev demo` without redis-server). Both follow
/// docs/pipeline-stores.md and pass the same behaviour tests. Failures are ``RedisError``s, which
/// the worker's outage handling understands; the in-memory store never fails.
public protocol ClaimStore {
    /// Who holds this store's claims (a worker's random id), or nil for a plain `pending`.
    var owner: String? { get }

    /// Claims every delivery of a batch: claimed, or what the claim another attempt left means for
    /// a claim from the request's source position.
    func claim(_ requests: [ClaimRequest]) throws(RedisError) -> [IdempotencyStore.ClaimResult]

    /// Settles claims with their outcomes for the redelivery horizon, releases `released` (only while
    /// it still holds this store's `pending`), and raises the recorded watermark of each position's
    /// partition to its offset (every message below it has all its outputs in Kafka; a lower offset
    /// leaves a watermark as it is), in one round trip.
    func settle(_ settled: [SettledClaim], released: [DeliveryKey], recorded: [SourcePosition]) throws(RedisError)

    /// Says this store's owner lives, for `livenessMilliseconds` (`pushline:owner:<owner>`), and
    /// renews the pending TTL of the `held` claims that still hold its `pending`, in one round trip:
    /// a live worker's deliveries are never taken over, however long APNs holds them.
    func keepAlive(holding held: [DeliveryKey], livenessMilliseconds: Int) throws(RedisError)

    /// The owners among `owners` that still say they live.
    func liveOwners(among owners: [String]) throws(RedisError) -> Set<String>

    /// Replaces each claim that still holds its dead holder's `pending` (compare-and-set); one
    /// answer per replacement: whether it was replaced.
    func replace(_ replacements: [ClaimReplacement]) throws(RedisError) -> [Bool]
}

extension ClaimStore {
    /// Records acceptances without an outcome: these deliveries are never sent again within the horizon.
    public func markSent(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(deliveries.map { SettledClaim($0, state: .sent) }, released: [], recorded: [])
    }

    /// Records permanent failures without an outcome.
    public func markFailed(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(deliveries.map { SettledClaim($0, state: .failed) }, released: [], recorded: [])
    }

    /// Gives claims back after retryable failures, so a later attempt can claim them.
    public func release(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle([], released: deliveries, recorded: [])
    }
}
