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
        /// `owner` is the holder's id when its claim names one (whether it still lives can be asked).
        case pending(owner: String?)
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
        /// output of it is in Kafka already, so nothing is emitted again. Also a release
        /// (``ClaimRequest/releasing``) of a delivery another message decided: nothing to emit.
        case recorded

        /// What a settled claim means for a claim from `source`, given the recorded watermark of
        /// `source`'s partition (nil when none is known); a release's claim settled by another
        /// message decides nothing more (a second release of the entry, or a delivery decided otherwise).
        static func settled(_ state: SettledClaim.State, _ outcome: SettledOutcome?, claimedFrom source: SourcePosition,
                            recordedUpTo watermark: Int64?, releasing: Bool = false) -> ClaimResult {
            if let watermark, source.offset < watermark { return .recorded }
            if let outcome, outcome.source == source { return .decided(outcome) }
            if releasing { return .recorded }
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

    /// Renews the pending TTL only while the key still holds this store's `pending` claim.
    private static let renew = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        return 0
        """)

    /// Sets the key only while it still holds the value `ARGV[1]` (a dead owner's `pending`).
    private static let replaceIfHeld = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end
        return 0
        """)

    /// Releases' claims (``ClaimRequest/releasing``), one per key: `pending` like `SET NX` when the
    /// key is free or settled `failed` with the `deferred` outcome (its status, the fourth field of
    /// the kept outcome, is the only `,"deferred",` a settled claim can hold: topics have no
    /// quotes) — unless, for a release that may have been deferred again
    /// (``ClaimRequest/deferrableAgain``), by that release's own message: after the pending value
    /// and its time to live, ARGV holds pairs of such a key's place and how its claim begins when
    /// deferred by the release's own record (``ClaimValue/appendDeferral(by:to:)``); read again,
    /// that record finds its own decision, re-emitted or recorded like any redelivery's —; else
    /// the key is left alone. Returns only the keys not claimed, as pairs of the key's place
    /// among KEYS (from 1) and its value: a release usually claims every key, and a reply per key
    /// would be converted out of Lua and read back for nothing.
    ///
    /// Read first, written only then: any other claim is left as it is, time to live included. One
    /// `SET … GET` per key with the other values put back would save a call per release, but the
    /// put-back value's time to live would start again, and a release waiting on another's
    /// `pending` (it asks again every second) would keep that claim from ever expiring. Without a
    /// script it needs a compare-and-set Redis 7.0 lacks.
    private static let claimReleases = RedisScript("""
        local own = {}
        for pair = 3, #ARGV, 2 do own[tonumber(ARGV[pair])] = ARGV[pair + 1] end
        local replies = {}
        for index, key in ipairs(KEYS) do
          local value = redis.call('GET', key)
          if value and not (string.sub(value, 1, 7) == 'failed ' and string.find(value, ',"deferred",', 1, true)
                            and not (own[index] and string.find(value, own[index], 1, true) == 1)) then
            replies[#replies + 1] = index
            replies[#replies + 1] = value
          else
            redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
          end
        end
        return replies
        """)

    /// At most this many releases' claims per script call: the script holds Redis while it runs.
    private static let releasesPerCall = 1_000

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
        pendingValue = ClaimValue.pending(owner: owner)
    }

    /// Claims every delivery of a batch (`SET key pending NX PX ttl GET`; releases' by a script
    /// that also takes over their `deferred` claims: one call for up to 1,000 of them, one per
    /// release on a Redis Cluster, whose keys lie in different slots) and reads the recorded
    /// watermark of each partition the batch comes from, in one round trip.
    public func claim(_ requests: [ClaimRequest]) throws(RedisError) -> [ClaimResult] {
        let (partitions, partitionOfRequest) = SourcePartition.distinct(requests.lazy.map(\.source))
        let releases = requests.indices.filter { requests[$0].releasing }
        let perCall: Int = if case .cluster = connection.configuration.topology { 1 } else { Self.releasesPerCall }
        let releaseCalls = stride(from: 0, to: releases.count, by: perCall).map { start in
            let call = releases[start..<min(start + perCall, releases.count)]
            var command = RedisCommand.evalSHA(Self.claimReleases, keys: call.map { requests[$0].key.claimKey },
                                               arguments: [pendingValue, String(configuration.pendingMilliseconds)])
            for (place, index) in call.enumerated() where requests[index].deferrableAgain {
                command.append(place + 1)
                command.append(writing: { ClaimValue.appendDeferral(by: requests[index].source, to: &$0) })
            }
            return command
        }
        let commands = requests.lazy.filter { !$0.releasing }.map { request in
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
        } + releaseCalls + partitions.map { RedisCommand("GET", $0.recordedKey) }
        let replies = try connection.pipeline(commands)
        let claimCount = requests.count - releases.count
        let watermarks = try replies[(claimCount + releaseCalls.count)...].map { (reply) throws(RedisError) -> Int64? in
            if case .error(let error) = reply { throw error }
            return reply.string.flatMap { Int64($0) }
        }
        // Each request's reply: its own command's, or for a release nil (claimed) unless its call
        // named it among the keys it left alone, with their values. A call's reply that is not such
        // pairs leaves its keys as a plain `pending`: checked again later, never taken as claimed.
        var releaseReplies: [RedisReply] = []
        releaseReplies.reserveCapacity(releases.count)
        for (call, reply) in replies[claimCount..<(claimCount + releaseCalls.count)].enumerated() {
            if case .error(let error) = reply { throw error }
            let keys = min(perCall, releases.count - call * perCall)
            releaseReplies += Self.releaseReplies(reply, keys: keys)
        }
        var nextRelease = releaseReplies.makeIterator()
        var claimReplies = replies[..<claimCount].makeIterator()
        let ordered = releases.isEmpty ? replies
            : requests.map { $0.releasing ? nextRelease.next() ?? .bulk([]) : claimReplies.next() ?? .bulk([]) }
        return try zip(requests.indices, ordered).map { (index, reply) throws(RedisError) -> ClaimResult in
            switch reply {
            case .null: return .claimed
            case .error(let error): throw error
            default:
                let value = reply.bytes ?? Array((reply.string ?? "").utf8)
                guard let (state, outcome) = ClaimValue.decode(value) else {
                    if owner != nil && value.elementsEqual(pendingValue.utf8) { return .heldByOwner }
                    return .pending(owner: ClaimValue.pendingOwner(value))
                }
                return .settled(state, outcome, claimedFrom: requests[index].source, recordedUpTo: watermarks[partitionOfRequest[index]],
                                releasing: requests[index].releasing)
            }
        }
    }

    /// One reply per key of a release call (`keys` of them) from its pairs of place and value.
    private static func releaseReplies(_ reply: RedisReply, keys: Int) -> [RedisReply] {
        guard let pairs = reply.array, pairs.count.isMultiple(of: 2) else { return Array(repeating: .bulk([]), count: keys) }
        var replies = Array(repeating: RedisReply.null, count: keys)
        for pair in stride(from: 0, to: pairs.count, by: 2) {
            guard let place = pairs[pair].integer, place >= 1, place <= keys else { return Array(repeating: .bulk([]), count: keys) }
            replies[Int(place) - 1] = pairs[pair + 1]
        }
        return replies
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

    /// Refreshes the owner's liveness key and renews `held` claims that still hold its `pending`
    /// (compare-and-`PEXPIRE`), in one round trip. Without an owner, only the claims are renewed.
    public func keepAlive(holding held: [DeliveryKey], livenessMilliseconds: Int) throws(RedisError) {
        let ttl = String(configuration.pendingMilliseconds)
        var commands = held.map { RedisCommand.evalSHA(Self.renew, keys: [$0.claimKey], arguments: [pendingValue, ttl]) }
        if let owner { commands.append(RedisCommand("SET", ClaimValue.ownerKey(owner), "alive", "PX", String(livenessMilliseconds))) }
        guard !commands.isEmpty else { return }
        let replies = try connection.pipeline(commands)
        if let error = replies.lazy.compactMap(\.error).first { throw error }
    }

    /// `EXISTS` of each owner's liveness key, in one round trip.
    public func liveOwners(among owners: [String]) throws(RedisError) -> Set<String> {
        guard !owners.isEmpty else { return [] }
        let replies = try connection.pipeline(owners.map { RedisCommand("EXISTS", ClaimValue.ownerKey($0)) })
        var live = Set<String>()
        for (owner, reply) in zip(owners, replies) {
            if case .error(let error) = reply { throw error }
            if reply.integer == 1 { live.insert(owner) }
        }
        return live
    }

    /// Compare-and-set of each claim from its dead holder's `pending`, in one round trip.
    public func replace(_ replacements: [ClaimReplacement]) throws(RedisError) -> [Bool] {
        guard !replacements.isEmpty else { return [] }
        let commands = replacements.map { replacement in
            let (value, ttl): (String, Int) = switch replacement.replacement {
            case .takeOver: (pendingValue, configuration.pendingMilliseconds)
            case .settle(let outcome):
                (String(decoding: ClaimValue.encoded(SettledClaim(replacement.key, outcome: outcome)), as: UTF8.self),
                 configuration.finishedMilliseconds)
            }
            return RedisCommand.evalSHA(Self.replaceIfHeld, keys: [replacement.key.claimKey],
                                        arguments: [ClaimValue.pending(owner: replacement.holder), value, String(ttl)])
        }
        return try connection.pipeline(commands).map { (reply) throws(RedisError) -> Bool in
            if case .error(let error) = reply { throw error }
            return reply.integer == 1
        }
    }
}
