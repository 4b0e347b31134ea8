import Redis

/// Idempotency claims in Redis, one per (intent, device): claim `pending` (short TTL) before
/// sending; on acceptance mark `sent` (long TTL); on a retryable failure release the claim
/// (compare-and-delete, so a claim another worker took after ours expired is left alone); on a
/// permanent failure mark `failed`. Every operation is one round trip per batch.
///
/// Confined like its `RedisConnection`: one thread at a time.
public struct IdempotencyStore {
    /// What a claim found.
    public enum ClaimResult: String, Sendable, Equatable {
        /// This worker holds the claim: send.
        case claimed
        /// Another attempt holds it and has not finished (redelivery while in flight): skip for now.
        case pending
        /// Already accepted by APNs: suppress as a duplicate.
        case sent
        /// Already rejected for good: suppress.
        case failed
    }

    public struct Configuration: Sendable {
        /// How long a `pending` claim lives if its worker dies mid-send.
        public var pendingMilliseconds = 60_000
        /// How long `sent` and `failed` are remembered (the redelivery horizon).
        public var finishedMilliseconds = 7 * 24 * 3600 * 1000

        public init() {}
    }

    public let configuration: Configuration
    private let connection: RedisConnection

    /// Deletes the key only while it still holds this worker's `pending` claim.
    private static let release = RedisScript("""
        if redis.call('GET', KEYS[1]) == 'pending' then return redis.call('DEL', KEYS[1]) end
        return 0
        """)

    public init(connection: RedisConnection, configuration: Configuration = Configuration()) {
        self.connection = connection
        self.configuration = configuration
    }

    /// Claims every delivery of a batch in one round trip (`SET key pending NX PX ttl GET`).
    public func claim(_ deliveries: [DeliveryKey]) throws(RedisError) -> [ClaimResult] {
        let commands = deliveries.map { delivery in
            RedisCommand("SET", delivery.claimKey, "pending", "NX", "PX", String(configuration.pendingMilliseconds), "GET")
        }
        return try connection.pipeline(commands).map { (reply) throws(RedisError) -> ClaimResult in
            switch reply {
            case .null: return .claimed
            case .error(let error): throw error
            default: return ClaimResult(rawValue: reply.string ?? "") ?? .pending
            }
        }
    }

    /// Records acceptances: these deliveries are never sent again within the horizon.
    public func markSent(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try finish(deliveries, as: "sent")
    }

    /// Records permanent failures.
    public func markFailed(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try finish(deliveries, as: "failed")
    }

    /// Gives claims back after retryable failures, so a later attempt can claim them.
    public func release(_ deliveries: [DeliveryKey]) throws(RedisError) {
        let replies = try connection.pipeline(deliveries.map { RedisCommand.evalSHA(Self.release, keys: [$0.claimKey]) })
        if let error = replies.lazy.compactMap(\.error).first { throw error }
    }

    private func finish(_ deliveries: [DeliveryKey], as state: String) throws(RedisError) {
        let ttl = String(configuration.finishedMilliseconds)
        let replies = try connection.pipeline(deliveries.map { RedisCommand("SET", $0.claimKey, state, "PX", ttl) })
        if let error = replies.lazy.compactMap(\.error).first { throw error }
    }
}
