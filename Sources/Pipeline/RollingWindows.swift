import APNsCore
import Redis

/// Counts deliveries under a key over rolling windows, in Redis: a sorted set per key whose members
/// are deliveries (their `apns-id`) scored by when they were counted (Unix milliseconds on the
/// worker's wall clock). An entry is counted only when every one of its limits has room; the same
/// delivery counted again (a redelivery, a retry) is not counted twice. One Lua call per entry (one
/// key each, so any Redis Cluster slot), one round trip per batch.
///
/// Confined like its `RedisConnection`: one thread at a time.
public struct RollingWindows: RollingWindowStore {
    /// At most `limit` entries within `windowMilliseconds` before now.
    public struct Limit: Sendable, Equatable {
        public var limit: Int
        public var windowMilliseconds: Int64

        public init(limit: Int, windowMilliseconds: Int64) {
            self.limit = limit
            self.windowMilliseconds = windowMilliseconds
        }
    }

    /// One delivery to count under one key.
    public struct Entry: Sendable {
        public var key: String
        /// What is counted: the delivery's `apns-id`.
        public var member: String
        /// Unix milliseconds.
        public var now: Int64
        public var limits: [Limit]

        public init(key: String, member: String, now: Int64, limits: [Limit]) {
            self.key = key
            self.member = member
            self.now = now
            self.limits = limits
        }
    }

    public enum Decision: String, Sendable, Equatable {
        /// Every limit had room: counted.
        case counted
        /// Already counted within the window (the same delivery again): let it through, not counted twice.
        case alreadyCounted = "again"
        /// A limit is reached: not counted.
        case overLimit = "over"
    }

    /// `pushline:cap:{<app>:<subject>}:<category>`, where the subject is `user:<id>` or
    /// `device:<token>`: a frequency cap's count. The hash tag keeps one recipient's categories in one slot.
    public static func frequencyCapKey(app: String, user: String?, token: DeviceToken, category: String) -> String {
        "pushline:cap:{" + app + ":" + (user.map { "user:" + $0 } ?? "device:" + token.hex) + "}:" + category
    }

    /// `pushline:budget:background:{<token>}`: a device's background pushes.
    public static func backgroundBudgetKey(token: DeviceToken) -> String {
        "pushline:budget:background:{" + token.hex + "}"
    }

    /// `pushline:budget:liveactivity:{<token>}`: a Live Activity's priority-10 updates (its push token names it).
    public static func liveActivityBudgetKey(token: DeviceToken) -> String {
        "pushline:budget:liveactivity:{" + token.hex + "}"
    }

    /// ARGV: now, member, then limit and window (ms) pairs. Entries older than the longest window are
    /// dropped when one is added, and the key lives as long as that window.
    private static let script = RedisScript("""
        local now = tonumber(ARGV[1])
        local longest = 0
        for i = 4, #ARGV, 2 do
          if tonumber(ARGV[i]) > longest then longest = tonumber(ARGV[i]) end
        end
        local seen = redis.call('ZSCORE', KEYS[1], ARGV[2])
        if seen and tonumber(seen) > now - longest then return 'again' end
        for i = 3, #ARGV, 2 do
          if redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[i + 1]) + 1, '+inf') >= tonumber(ARGV[i]) then return 'over' end
        end
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - longest)
        redis.call('ZADD', KEYS[1], now, ARGV[2])
        redis.call('PEXPIRE', KEYS[1], longest)
        return 'counted'
        """)

    private let connection: RedisConnection

    public init(connection: RedisConnection) {
        self.connection = connection
    }

    public func count(_ entries: [Entry]) throws(RedisError) -> [Decision] {
        guard !entries.isEmpty else { return [] }
        let commands = entries.map { entry in
            RedisCommand.evalSHA(Self.script, keys: [entry.key],
                                 arguments: [String(entry.now), entry.member]
                                     + entry.limits.flatMap { [String($0.limit), String($0.windowMilliseconds)] })
        }
        return try connection.pipeline(commands).map { (reply) throws(RedisError) -> Decision in
            if case .error(let error) = reply { throw error }
            return Decision(rawValue: reply.string ?? "") ?? .overLimit
        }
    }
}
