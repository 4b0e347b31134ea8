import Redis

/// Idempotency claims in Redis, one per (intent, device): claim `pending` (short TTL) before
/// sending; on acceptance mark `sent` (long TTL); on a retryable failure release the claim
/// (compare-and-delete, so a claim another worker took after ours expired is left alone); on a
/// permanent failure mark `failed`. Every operation is one round trip per batch.
///
/// A store with an ``owner`` writes `pending <owner>`, so a claim it repeats (a round trip whose
/// replies were lost with the connection) is recognised as its own (``ClaimResult/heldByOwner``)
/// rather than as another attempt's.
///
/// Confined like its `RedisConnection`: one thread at a time.
public struct IdempotencyStore {
    /// What a claim found.
    public enum ClaimResult: String, Sendable, Equatable {
        /// This worker holds the claim: send.
        case claimed
        /// Another attempt holds it and has not finished (redelivery while in flight): skip for now.
        case pending
        /// This store's ``IdempotencyStore/owner`` already holds it `pending`.
        case heldByOwner
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
    /// Who holds this store's claims (a worker's random id), or nil for a plain `pending`.
    public let owner: String?
    private let connection: RedisConnection
    /// The value of this store's `pending` claims.
    private let pendingValue: String

    /// Deletes the key only while it still holds this store's `pending` claim.
    private static let release = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)

    public init(connection: RedisConnection, configuration: Configuration = Configuration(), owner: String? = nil) {
        self.connection = connection
        self.configuration = configuration
        self.owner = owner
        pendingValue = owner.map { "pending " + $0 } ?? "pending"
    }

    /// Claims every delivery of a batch in one round trip (`SET key pending NX PX ttl GET`).
    public func claim(_ deliveries: [DeliveryKey]) throws(RedisError) -> [ClaimResult] {
        let commands = deliveries.map { delivery in
            RedisCommand("SET", delivery.claimKey, pendingValue, "NX", "PX", String(configuration.pendingMilliseconds), "GET")
        }
        return try connection.pipeline(commands).map { (reply) throws(RedisError) -> ClaimResult in
            switch reply {
            case .null: return .claimed
            case .error(let error): throw error
            default:
                let state = reply.string ?? ""
                if owner != nil && state == pendingValue { return .heldByOwner }
                return state == "sent" ? .sent : state == "failed" ? .failed : .pending
            }
        }
    }

    /// Records acceptances: these deliveries are never sent again within the horizon.
    public func markSent(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(sent: deliveries)
    }

    /// Records permanent failures.
    public func markFailed(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(failed: deliveries)
    }

    /// Gives claims back after retryable failures, so a later attempt can claim them.
    public func release(_ deliveries: [DeliveryKey]) throws(RedisError) {
        try settle(released: deliveries)
    }

    /// Marks `sent` and `failed` (plain `SET … PX <horizon>`) and releases `released`
    /// (compare-and-delete of this store's `pending`), all in one round trip.
    public func settle(sent: [DeliveryKey] = [], failed: [DeliveryKey] = [], released: [DeliveryKey] = []) throws(RedisError) {
        guard !sent.isEmpty || !failed.isEmpty || !released.isEmpty else { return }
        let ttl = String(configuration.finishedMilliseconds)
        let commands = sent.map { RedisCommand("SET", $0.claimKey, "sent", "PX", ttl) }
            + failed.map { RedisCommand("SET", $0.claimKey, "failed", "PX", ttl) }
            + released.map { RedisCommand.evalSHA(Self.release, keys: [$0.claimKey], arguments: [pendingValue]) }
        let replies = try connection.pipeline(commands)
        if let error = replies.lazy.compactMap(\.error).first { throw error }
    }
}
