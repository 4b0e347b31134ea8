import APNsCore
import Redis

/// Server-side suppression by collapse id: within a window, a second intent with the same collapse
/// id for the same device is dropped when it is a duplicate (same creation time) or stale (older
/// than the one already let through — intents can arrive out of order across partitions and
/// retries). A newer one replaces the recorded one. One round trip per batch.
///
/// Confined like its `RedisConnection`: one thread at a time.
public struct CollapseWindow: CollapseStore {
    /// One intent for one device with a collapse id.
    public struct Entry: Sendable {
        public var deviceToken: DeviceToken
        public var collapseID: String
        public var intentID: String
        /// The intent's `created_at`, Unix milliseconds: what "newer" means.
        public var createdAt: Int64
        public var windowSeconds: Int

        public init(deviceToken: DeviceToken, collapseID: String, intentID: String, createdAt: Int64, windowSeconds: Int) {
            self.deviceToken = deviceToken
            self.collapseID = collapseID
            self.intentID = intentID
            self.createdAt = createdAt
            self.windowSeconds = windowSeconds
        }

        /// `pushline:collapse:<token>:<collapse id>`.
        var key: String { "pushline:collapse:" + deviceToken.hex + ":" + collapseID }
    }

    public enum Decision: String, Sendable, Equatable {
        /// Send it; it is now the device's latest for this collapse id.
        case accepted
        /// The same intent again (a redelivery): the idempotency claim decides.
        case sameIntent = "same"
        /// Another intent created at the same moment already went through.
        case duplicate
        /// A newer intent already went through.
        case stale
    }

    /// Compare-and-set of "<created_at> <intent id>" under the key, with the window as TTL.
    private static let check = RedisScript("""
        local current = redis.call('GET', KEYS[1])
        if current then
          local space = string.find(current, ' ', 1, true)
          local seen = tonumber(string.sub(current, 1, space - 1))
          if string.sub(current, space + 1) == ARGV[2] then return 'same' end
          local created = tonumber(ARGV[1])
          if seen == created then return 'duplicate' end
          if seen > created then return 'stale' end
        end
        redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'EX', ARGV[3])
        return 'accepted'
        """)

    private let connection: RedisConnection

    public init(connection: RedisConnection) {
        self.connection = connection
    }

    public func decide(_ entries: [Entry]) throws(RedisError) -> [Decision] {
        let commands = entries.map { entry in
            RedisCommand.evalSHA(Self.check, keys: [entry.key],
                                 arguments: [String(entry.createdAt), entry.intentID, String(max(entry.windowSeconds, 1))])
        }
        return try connection.pipeline(commands).map { (reply) throws(RedisError) -> Decision in
            if case .error(let error) = reply { throw error }
            return Decision(rawValue: reply.string ?? "") ?? .accepted
        }
    }
}
