import Redis
import Runtime

/// Deliveries held back until a release time, in Redis: shared by every worker of a pipeline and
/// kept across restarts (quiet hours, docs/policies.md and docs/pipeline-stores.md).
///
/// Keys, per pipeline, in `shards` slots of a Redis Cluster (the hash tag `{<pipeline>:<shard>}`,
/// the shard chosen by the entry id): `pushline:deferred:{<pipeline>:<shard>}` — a sorted set of
/// entry ids by release time — and `pushline:deferred:{<pipeline>:<shard>}:entries` — a hash of
/// entry id → `<release ms> <body>`. Keeping is plain commands (`HSET`, `ZADD`), one round trip;
/// taking what is due is one Lua script per shard that leases the due ids, all shards in one round
/// trip, then their bodies by plain `HMGET`s in another.
///
/// A take **leases** what it returns instead of deleting it: each entry's score moves to `now +
/// lease`, atomically, so no other worker takes it within the lease, and an entry whose taker dies
/// before it ``complete(_:)``s is due again when the lease ends (at-least-once release; the
/// delivery's idempotency claim keeps the device from a second copy). ``complete(_:)`` removes
/// entries once their final outcome is recorded.
///
/// Coalescing (the background budget): an entry with a ``DeferredEntry/coalescing`` key also sets
/// `pushline:deferred:newest:{<pipeline>:<key>}` to its id (`SET … GET`, in the keep's round
/// trip); the id it replaces, if another, is marked `pushline:deferred:replaced:{<pipeline>:<id>}`
/// and made due at once (`ZADD XX` score 0), in one more round trip only then. Plain commands:
/// `SET … GET` hands each replaced id to exactly one keeper. Confined like its `RedisConnection`.
public struct DeferredStore {
    /// How the store spreads and leases its entries.
    public struct Configuration: Sendable, Equatable {
        /// How many slots a pipeline's entries spread over (a Redis Cluster's masters share the work).
        public var shards: Int
        /// How long a taken entry stays with its taker before it is due again.
        public var lease: Duration
        /// At most this many entries per shard per take.
        public var takeLimit: Int
        /// How long a coalescing key remembers its newest entry, and a replaced entry its mark.
        public var coalescingTTL: Duration

        public init(shards: Int = 16, lease: Duration = .seconds(60), takeLimit: Int = 1000, coalescingTTL: Duration = .seconds(86_400)) {
            precondition(shards > 0 && (1...DeferredStore.largestTakeLimit).contains(takeLimit),
                         "a deferred store needs at least one shard and a take limit of 1 to \(DeferredStore.largestTakeLimit)")
            self.shards = shards
            self.lease = lease
            self.takeLimit = takeLimit
            self.coalescingTTL = coalescingTTL
        }
    }

    /// Leases up to ARGV[2] ids due at ARGV[1] (ms) in one shard's sorted set (KEYS[1]) until
    /// ARGV[3], and returns them: `ZRANGEBYSCORE` and one `ZADD XX` for them all. The bodies are
    /// read after it by a plain `HMGET` (``takeDue(now:)``), not inside the script: every value a
    /// script reads or returns is converted into Lua and back, and the bodies' conversions were a
    /// large part of redis-server's work in a release (docs/BENCHMARKS.md, "The take without the
    /// bodies").
    private static let leaseDueScript = RedisScript("""
        local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
        if #ids == 0 then return ids end
        local leases = {}
        for index, id in ipairs(ids) do
          leases[2 * index - 1] = ARGV[3]
          leases[2 * index] = id
        end
        redis.call('ZADD', KEYS[1], 'XX', unpack(leases))
        return ids
        """)

    /// Removes each id of ARGV[2…] from one shard's sorted set (KEYS[1]) and its body from the hash
    /// (KEYS[2]) while its score is still ARGV[1], the score of the lease a take gave them (the
    /// lease's end and a half: ``takeDue(now:)``): an entry kept again since it was taken has its
    /// release time as score, a whole millisecond, and stays. Three calls for all the ids —
    /// `ZMSCORE`, then one `HDEL` and one `ZREM` naming those still leased — rather than three per
    /// id (docs/BENCHMARKS.md, "The completion in three calls per shard").
    private static let completeLeasedScript = RedisScript("""
        local lease = tonumber(ARGV[1])
        local scores = redis.call('ZMSCORE', KEYS[1], unpack(ARGV, 2))
        local leased = {}
        for index, score in ipairs(scores) do
          if score and tonumber(score) == lease then leased[#leased + 1] = ARGV[index + 1] end
        end
        if #leased == 0 then return 0 end
        redis.call('HDEL', KEYS[2], unpack(leased))
        return redis.call('ZREM', KEYS[1], unpack(leased))
        """)

    /// Removes from one shard's sorted set (KEYS[1]) each id of ARGV that has no body in its hash
    /// (KEYS[2]) — checked in the script, so an id kept again since the take read it stays.
    private static let dropWithoutBodyScript = RedisScript("""
        local removed = 0
        for _, id in ipairs(ARGV) do
          if redis.call('HEXISTS', KEYS[2], id) == 0 then removed = removed + redis.call('ZREM', KEYS[1], id) end
        end
        return removed
        """)

    /// The most entries a take may ask for per shard: the script passes a command twice as many
    /// arguments, and Lua's `unpack` stops short of 8,000 values. Also the most ids one completion
    /// script names (``complete(_:)``).
    static let largestTakeLimit = 2_000

    let connection: RedisConnection
    public let pipeline: String
    public let configuration: Configuration
    /// Each shard's sorted set, `pushline:deferred:{<pipeline>:<shard>}`, built once: every entry
    /// kept or completed names one.
    private let shardKeys: [String]

    public init(connection: RedisConnection, pipeline: String, configuration: Configuration = Configuration()) {
        self.connection = connection
        self.pipeline = pipeline
        self.configuration = configuration
        shardKeys = (0..<configuration.shards).map { "pushline:deferred:{\(pipeline):\($0)}" }
    }

    /// Keeps `entries` (an entry with the id of one kept replaces it), in one round trip. The body
    /// is written before the release time, so a crash between them leaves no id without a body
    /// that would be due.
    public func keep(_ entries: [DeferredEntry]) throws(RedisError) {
        guard !entries.isEmpty else { return }
        var commands: [RedisCommand] = []
        commands.reserveCapacity(entries.count * 2)
        let ttl = String(configuration.coalescingTTL.wholeMilliseconds)
        // Where each coalescing entry's `SET … GET` is among the commands, and its id.
        var newest: [(index: Int, id: String)] = []
        for entry in entries {
            let shard = shardKey(entry.id)
            var write = RedisCommand(reservingBytes: shard.utf8.count + entry.body.count + 64, arguments: 4)
            write.append("HSET")
            write.append(entriesKey(shard))
            write.append(entry.id)
            write.append(writing: { bytes in
                bytes.append(contentsOf: "\(entry.releaseAt) ".utf8)
                bytes.append(contentsOf: entry.body)
            })
            commands.append(write)
            commands.append(RedisCommand("ZADD", shard, String(entry.releaseAt), entry.id))
            if let coalescing = entry.coalescing {
                newest.append((commands.count, entry.id))
                commands.append(RedisCommand("SET", "pushline:deferred:newest:{\(pipeline):\(coalescing)}", entry.id, "PX", ttl, "GET"))
            }
        }
        let replies = try connection.pipeline(commands)
        try Self.check(replies)
        var replacing: [RedisCommand] = []
        for (index, id) in newest {
            guard let replaced = replies[index].string, replaced != id else { continue }
            replacing.append(RedisCommand("SET", replacedKey(replaced), "1", "PX", ttl))
            replacing.append(RedisCommand("ZADD", shardKey(replaced), "XX", "0", replaced))
        }
        if !replacing.isEmpty { try Self.check(try connection.pipeline(replacing)) }
    }

    /// Whether each id was replaced under its coalescing key (`EXISTS` of its mark), in one round trip.
    public func replaced(_ ids: [String]) throws(RedisError) -> [Bool] {
        guard !ids.isEmpty else { return [] }
        let replies = try connection.pipeline(ids.map { RedisCommand("EXISTS", replacedKey($0)) })
        try Self.check(replies)
        return replies.map { $0.integer == 1 }
    }

    /// `pushline:deferred:replaced:{<pipeline>:<id>}`: the mark of an entry a newer one replaced.
    private func replacedKey(_ id: String) -> String {
        "pushline:deferred:replaced:{\(pipeline):\(id)}"
    }

    /// Takes the entries due at `now` (Unix ms), at most ``Configuration/takeLimit`` per shard, and
    /// leases them to the caller until `now +` ``Configuration/lease``: atomically per shard, so two
    /// workers never take the same entry within a lease. Two round trips for every shard: the leases
    /// (a script per shard), then the leased entries' bodies (an `HMGET` per shard that had some).
    /// An id found without a body — left by a crash half-way through a completion of a worker before
    /// 2026-12-05 (`HDEL` done, `ZREM` not; a completion is one script since), or by a hand
    /// removing it — is dropped from its sorted set in a
    /// third, only then, unless kept again since. A value that is not `<release ms> <body>` (written
    /// by something other than ``keep(_:)``) is taken and leased like any entry, whole as its body,
    /// due `now`, so the caller sees it (the releaser reports a body that is not a release record and
    /// leaves it in the store). Complete each entry once its outcome is recorded.
    public func takeDue(now: Int64) throws(RedisError) -> [DeferredEntry] {
        let leaseEnd = now + Int64(configuration.lease.wholeMilliseconds)
        let leaseScore = Self.leaseScore(leaseEnd)
        let leases = try connection.pipeline(shardKeys.map { key in
            RedisCommand.evalSHA(Self.leaseDueScript, keys: [key], arguments: [String(now), String(configuration.takeLimit), leaseScore])
        })
        try Self.check(leases)
        let leased = zip(shardKeys, leases).compactMap { shard, reply -> (shard: String, ids: [String])? in
            let ids = (reply.array ?? []).compactMap(\.string)
            return ids.isEmpty ? nil : (shard, ids)
        }
        guard !leased.isEmpty else { return [] }
        let bodies = try connection.pipeline(leased.map { RedisCommand("HMGET", [entriesKey($0.shard)] + $0.ids) })
        try Self.check(bodies)
        var entries: [DeferredEntry] = []
        var drops: [RedisCommand] = []
        for ((shard, ids), reply) in zip(leased, bodies) {
            let values = reply.array ?? []
            var withoutBody: [String] = []
            for (index, id) in ids.enumerated() {
                guard index < values.count, let value = values[index].bytes else {
                    withoutBody.append(id)
                    continue
                }
                var entry = Self.entry(id: id, value: value) ?? DeferredEntry(id: id, releaseAt: now, body: value)
                entry.leasedUntil = leaseEnd
                entries.append(entry)
            }
            if !withoutBody.isEmpty {
                drops.append(RedisCommand.evalSHA(Self.dropWithoutBodyScript, keys: [shard, entriesKey(shard)], arguments: withoutBody))
            }
        }
        if !drops.isEmpty { try Self.check(try connection.pipeline(drops)) }
        return entries
    }

    /// Removes the `taken` entries (their release records are on the intents topic), each only while
    /// its score is still the one the lease its take gave it wrote (its end, ``DeferredEntry/leasedUntil``,
    /// and a half): one script per shard and lease that has some (per ``largestTakeLimit`` of them),
    /// all in one round trip. An entry
    /// kept again since — a background push's release that the worker reading it deferred again,
    /// often within the second before this completion — has its new release time as score and
    /// stays. (Removing every taken id, as before 2026-12-05, removed such an entry with its new
    /// release: the delivery was never released again.) An entry no take returned (no lease) is
    /// not removed.
    public func complete(_ taken: [DeferredEntry]) throws(RedisError) {
        // The ids to complete per shard and lease (a take leases all it returns until one end).
        var groups: [ShardLease: [String]] = [:]
        for entry in taken {
            guard let leasedUntil = entry.leasedUntil else { continue }
            groups[ShardLease(shard: shard(of: entry.id), leasedUntil: leasedUntil), default: []].append(entry.id)
        }
        let commands = groups.flatMap { group, ids in
            stride(from: 0, to: ids.count, by: Self.largestTakeLimit).map { start in
                RedisCommand.evalSHA(Self.completeLeasedScript, keys: [shardKeys[group.shard], entriesKey(shardKeys[group.shard])],
                                     arguments: [Self.leaseScore(group.leasedUntil)] + ids[start..<min(start + Self.largestTakeLimit, ids.count)])
            }
        }
        guard !commands.isEmpty else { return }
        try Self.check(try connection.pipeline(commands))
    }

    /// A shard and the end of a lease: the entries one completion script names.
    private struct ShardLease: Hashable {
        var shard: Int
        var leasedUntil: Int64
    }

    /// How many entries the store keeps (due, leased or waiting), over every shard, in one round trip.
    public func count() throws(RedisError) -> Int {
        let replies = try connection.pipeline(shardKeys.map { RedisCommand("ZCARD", $0) })
        try Self.check(replies)
        return replies.reduce(0) { $0 + Int($1.integer ?? 0) }
    }

    /// The earliest release time kept (a leased entry's counts as the lease's end), nil when empty;
    /// one round trip.
    public func nextRelease() throws(RedisError) -> Int64? {
        let replies = try connection.pipeline(shardKeys.map {
            RedisCommand("ZRANGE", $0, "0", "0", "WITHSCORES")
        })
        try Self.check(replies)
        return replies.compactMap { reply in reply.array.flatMap { $0.count == 2 ? $0[1].string : nil }.flatMap { Double($0) } }
            .min().map { Int64($0) }
    }

    /// The score of an entry leased until `leaseEnd` (ms): half a millisecond past it, a score
    /// ``keep(_:)`` never writes, so an entry kept again since (with any release time) is told
    /// apart by ``complete(_:)``.
    private static func leaseScore(_ leaseEnd: Int64) -> String {
        "\(leaseEnd).5"
    }

    /// The sorted set of the shard `id` falls in.
    func shardKey(_ id: String) -> String {
        shardKeys[shard(of: id)]
    }

    /// The shard `id` falls in.
    private func shard(of id: String) -> Int {
        Int(stableHash(id) % UInt64(configuration.shards))
    }

    /// The hash of bodies beside the sorted set `shard` (same hash tag, so the same slot).
    private func entriesKey(_ shard: String) -> String {
        shard + ":entries"
    }

    /// An entry from its id and stored value (`<release ms> <body>`); nil when the value is not one.
    private static func entry(id: String, value: [UInt8]) -> DeferredEntry? {
        guard let space = value.firstIndex(of: UInt8(ascii: " ")),
              let releaseAt = Int64(String(decoding: value[..<space], as: UTF8.self)) else { return nil }
        return DeferredEntry(id: id, releaseAt: releaseAt, body: Array(value[(space + 1)...]))
    }

    /// Throws the first error reply.
    private static func check(_ replies: [RedisReply]) throws(RedisError) {
        if let error = replies.lazy.compactMap(\.error).first { throw error }
    }
}
