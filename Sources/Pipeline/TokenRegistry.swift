import APNsCore
import Redis

/// Which device tokens a user has, per app and environment, with when each was registered; and
/// the user's profile (locale). Fed by the `pushline.tokens` topic and `pushline tokens register`.
///
/// Keys: `pushline:tokens:{<app>:<environment>}:<user>` (hash token → registration time, ms),
/// `pushline:token-owner:{<app>:<environment>}:<token>` (the user, for removal by token), and
/// `pushline:profile:<user>` (hash with `locale` and `time_zone`). The hash tag `{<app>:<environment>}` keeps an
/// app environment's tokens and owners in one Redis Cluster slot: a script that moves a token from
/// its previous owner reads that owner's key name from the owner key, so it cannot declare it in
/// advance, and Cluster runs it only because it is in the declared keys' slot. Confined like its
/// `RedisConnection`.
public struct TokenRegistry: TokenStore {
    /// A registered device.
    public struct Device: Sendable, Equatable {
        public var token: DeviceToken
        /// Unix milliseconds.
        public var registeredAt: Int64
    }

    /// Removes the token only if it was not registered again after `invalidated_at` (APNs' 410
    /// timestamp): a device that re-registered after APNs declared the token gone keeps it.
    private static let removeIfStale = RedisScript("""
        local user = redis.call('GET', KEYS[1])
        if not user then return 0 end
        local tokens = ARGV[1] .. user
        local registered = tonumber(redis.call('HGET', tokens, ARGV[2]) or '-1')
        if registered > tonumber(ARGV[3]) then return 0 end
        redis.call('HDEL', tokens, ARGV[2])
        redis.call('DEL', KEYS[1])
        return 1
        """)

    let connection: RedisConnection

    public init(connection: RedisConnection) {
        self.connection = connection
    }

    /// Every user's devices, in one round trip, in the order of `users`.
    public func devices(users: [String], app: String, environment: String) throws(RedisError) -> [[Device]] {
        let replies = try connection.pipeline(users.map { RedisCommand("HGETALL", Self.tokensKey(app, environment, $0)) })
        return try replies.map { (reply) throws(RedisError) in try Self.devices(in: reply) }
    }

    /// Each query's devices and its user's profile, in one round trip (`HGETALL` and `HMGET` per query).
    public func recipients(_ queries: [UserQuery]) throws(RedisError) -> [UserRecipients] {
        let replies = try connection.pipeline(queries.flatMap { query in
            [RedisCommand("HGETALL", Self.tokensKey(query.app, query.environment, query.user)), Self.profileRead(query.user)]
        })
        return try stride(from: 0, to: replies.count, by: 2).map { (index) throws(RedisError) in
            UserRecipients(devices: try Self.devices(in: replies[index]), profile: try Self.profile(in: replies[index + 1]))
        }
    }

    /// The devices of an `HGETALL` of a user's tokens key (token → registration time).
    private static func devices(in reply: RedisReply) throws(RedisError) -> [Device] {
        if case .error(let error) = reply { throw error }
        let fields = reply.array ?? []
        return stride(from: 0, to: fields.count - 1, by: 2).compactMap { index in
            guard let hex = fields[index].string, let token = try? DeviceToken(hex),
                  let registered = fields[index + 1].string.flatMap({ Int64($0) }) else { return nil }
            return Device(token: token, registeredAt: registered)
        }
    }

    /// The command that reads a user's profile: `HMGET` of its locale and time zone.
    private static func profileRead(_ user: String) -> RedisCommand {
        RedisCommand("HMGET", profileKey(user), "locale", "time_zone")
    }

    /// The profile of a ``profileRead(_:)``'s reply (a field left unset is nil).
    private static func profile(in reply: RedisReply) throws(RedisError) -> UserProfile {
        if case .error(let error) = reply { throw error }
        let fields = reply.array ?? []
        func field(_ index: Int) -> String? { index < fields.count && fields[index] != .null ? fields[index].string : nil }
        return UserProfile(locale: field(0), timeZone: field(1))
    }

    /// Removes a token APNs declared invalid at `invalidatedAt` (ms), unless it was registered
    /// again later. Returns whether it was removed.
    @discardableResult
    public func remove(app: String, environment: String, token: DeviceToken, invalidatedAt: Int64) throws(RedisError) -> Bool {
        let reply = try connection.evaluate(Self.removeIfStale, keys: [Self.ownerKey(app, environment, token)],
                                            arguments: [Self.tokensKey(app, environment, ""), token.hex, String(invalidatedAt)])
        return reply.integer == 1
    }

    public func setLocale(_ locale: String, user: String) throws(RedisError) {
        if case .error(let error) = try connection.send(RedisCommand("HSET", Self.profileKey(user), "locale", locale)) { throw error }
    }

    /// Every user's profile, in one round trip.
    public func profiles(users: [String]) throws(RedisError) -> [UserProfile] {
        try connection.pipeline(users.map(Self.profileRead)).map { (reply) throws(RedisError) in try Self.profile(in: reply) }
    }

    /// The command that writes a registration's profile fields (`HSET` of those it carries), nil when it carries none.
    static func profileWrite(_ registration: TokenRegistration) -> RedisCommand? {
        let fields = [("locale", registration.locale), ("time_zone", registration.timeZone)].compactMap { name, value in
            value.map { [name, $0] }
        }
        guard !fields.isEmpty else { return nil }
        return RedisCommand("HSET", [profileKey(registration.user)] + fields.flatMap { $0 })
    }

    static func tokensKey(_ app: String, _ environment: String, _ user: String) -> String {
        "pushline:tokens:{\(app):\(environment)}:\(user)"
    }

    static func ownerKey(_ app: String, _ environment: String, _ token: DeviceToken) -> String {
        "pushline:token-owner:{\(app):\(environment)}:\(token.hex)"
    }

    static func profileKey(_ user: String) -> String {
        "pushline:profile:\(user)"
    }
}
