import Redis

/// Idempotency claims in Redis, one per (intent, device): claim `pending` (short TTL) before
/// sending; on acceptance mark `sent` (long TTL); on a retryable failure release the claim
/// (compare-and-delete, so a claim another worker took after ours expired is left alone); on a
/// permanent failure mark `failed`. A settled claim keeps the outcome that settled it and where
/// its message was read; with each partition's recorded watermark (kept here too), a claim from a
/// redelivered message tells whether to re-emit that outcome, emit nothing, or suppress a
/// duplicate (``ClaimResult``). Every operation is one round trip per batch.
///
/// A store with an ``owner`` writes `pending <owner>`, so a claim it repeats (a round trip whose
/// replies were lost with the connection) is recognised as its own (``ClaimResult/heldByOwner``)
/// rather than as another attempt's.
///
/// Confined like its `RedisConnection`: one thread at a time.
public struct IdempotencyStore: ClaimStore {
    /// What a claim found.
    public enum ClaimResult: Sendable, Equatable {
        /// This worker holds the claim: send.
        case claimed
        /// Another attempt holds it and has not finished (redelivery while in flight): skip for now.
        case pending
        /// This store's ``IdempotencyStore/owner`` already holds it `pending`.
        case heldByOwner
        /// Accepted by APNs for another message: suppress as a duplicate.
        case sent
        /// Rejected for good (or dropped by a collapse window) for another message: suppress.
        case failed
        /// Decided for this very message (the claim names its source position), whose outcome Kafka
        /// may not have: emit this outcome again.
        case decided(SettledOutcome)
        /// Settled, and the claiming message lies below its partition's recorded watermark: every
        /// output of it is in Kafka already, so nothing is emitted again.
        case recorded

        /// What a settled claim means for a claim from `source`, given the recorded watermark of
        /// `source`'s partition (nil when none is known).
        static func settled(_ state: SettledClaim.State, _ outcome: SettledOutcome?, claimedFrom source: SourcePosition,
                            recordedUpTo watermark: Int64?) -> ClaimResult {
            if let watermark, source.offset < watermark { return .recorded }
            if let outcome, outcome.source == source { return .decided(outcome) }
            return state == .sent ? .sent : .failed
        }
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

    /// Raises a recorded watermark, never lowers it: a worker that takes a partition over from an
    /// earlier offset writes its own, lower watermark while it works through messages above the
    /// one already recorded.
    private static let raiseWatermark = RedisScript("""
        local current = tonumber(redis.call('GET', KEYS[1]))
        if current and current >= tonumber(ARGV[1]) then return 0 end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        return 1
        """)

    public init(connection: RedisConnection, configuration: Configuration = Configuration(), owner: String? = nil) {
        self.connection = connection
        self.configuration = configuration
        self.owner = owner
        pendingValue = owner.map { "pending " + $0 } ?? "pending"
    }

    /// Claims every delivery of a batch (`SET key pending NX PX ttl GET`) and reads the recorded
    /// watermark of each partition the batch comes from, in one round trip.
    public func claim(_ requests: [ClaimRequest]) throws(RedisError) -> [ClaimResult] {
        let (partitions, partitionOfRequest) = SourcePartition.distinct(requests.lazy.map(\.source))
        let commands = requests.map { request in
            // Built argument by argument into room made once: no array of arguments per delivery.
            var command = RedisCommand(reservingBytes: DeliveryKey.claimKeyLength + pendingValue.utf8.count + 32, arguments: 7)
            command.append("SET")
            command.append(writing: request.key.appendClaimKey)
            command.append(pendingValue)
            command.append("NX")
            command.append("PX")
            command.append(configuration.pendingMilliseconds)
            command.append("GET")
            return command
        } + partitions.map { RedisCommand("GET", $0.recordedKey) }
        let replies = try connection.pipeline(commands)
        let watermarks = try replies[requests.count...].map { (reply) throws(RedisError) -> Int64? in
            if case .error(let error) = reply { throw error }
            return reply.string.flatMap { Int64($0) }
        }
        return try zip(requests.indices, replies).map { (index, reply) throws(RedisError) -> ClaimResult in
            switch reply {
            case .null: return .claimed
            case .error(let error): throw error
            default:
                let value = reply.bytes ?? Array((reply.string ?? "").utf8)
                guard let (state, outcome) = ClaimValue.decode(value) else {
                    return owner != nil && value.elementsEqual(pendingValue.utf8) ? .heldByOwner : .pending
                }
                return .settled(state, outcome, claimedFrom: requests[index].source, recordedUpTo: watermarks[partitionOfRequest[index]])
            }
        }
    }

    /// Settles claims with their outcomes (plain `SET … PX <horizon>`), releases `released`
    /// (compare-and-delete of this store's `pending`) and raises the partitions' recorded watermarks
    /// to each position's offset (for the same horizon), all in one round trip.
    public func settle(_ settled: [SettledClaim], released: [DeliveryKey] = [], recorded: [SourcePosition] = []) throws(RedisError) {
        guard !settled.isEmpty || !released.isEmpty || !recorded.isEmpty else { return }
        let ttl = String(configuration.finishedMilliseconds)
        let commands = settled.map { claim in
            // Room for the key, a settled claim's value (about 150 bytes) and the rest, so the
            // command's buffer does not grow as it is written.
            var command = RedisCommand(reservingBytes: DeliveryKey.claimKeyLength + 256, arguments: 5)
            command.append("SET")
            command.append(writing: claim.key.appendClaimKey)
            command.append(writing: { ClaimValue.encode(claim, into: &$0) })
            command.append("PX")
            command.append(ttl)
            return command
        }
            + released.map { RedisCommand.evalSHA(Self.release, keys: [$0.claimKey], arguments: [pendingValue]) }
            + recorded.map { RedisCommand.evalSHA(Self.raiseWatermark, keys: [$0.topicPartition.recordedKey], arguments: [String($0.offset), ttl]) }
        let replies = try connection.pipeline(commands)
        if let error = replies.lazy.compactMap(\.error).first { throw error }
    }
}
