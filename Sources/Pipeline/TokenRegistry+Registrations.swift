import Redis

extension TokenRegistry {
    /// What applying one ``TokenRegistration`` did.
    public enum RegistrationEffect: String, Sendable, Equatable {
        /// The registry changed as the record asked (a registration at the same time is applied again).
        case applied
        /// Nothing changed: the token was registered later than the record's time (by this user or
        /// another one), and the later registration stands.
        case superseded
        /// An unregistration of a token the user does not have: nothing to do.
        case notRegistered
    }

    /// Registers a token for a user unless a later registration of it exists; a token registered
    /// for another user before leaves that user (a device changes hands with its login).
    /// KEYS[1]: the owner key, KEYS[2]: the user's tokens key. ARGV: the tokens-key prefix (for the
    /// previous owner's key, in the same slot), user, token, time (ms). Returns 1 when applied, 0 when superseded.
    private static let registerUnlessSuperseded = RedisScript("""
        local prefix, user, token, at = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
        local owner = redis.call('GET', KEYS[1])
        if owner and owner ~= user then
          if tonumber(redis.call('HGET', prefix .. owner, token) or '-1') > at then return 0 end
          redis.call('HDEL', prefix .. owner, token)
        end
        if tonumber(redis.call('HGET', KEYS[2], token) or '-1') > at then return 0 end
        redis.call('HSET', KEYS[2], token, ARGV[4])
        redis.call('SET', KEYS[1], user)
        return 1
        """)

    /// Removes a user's token unless the user registered it again after the unregistration.
    /// KEYS[1]: the owner key, KEYS[2]: the user's tokens key. ARGV: the tokens-key prefix, user,
    /// token, time (ms). Returns 1 when removed, 0 when superseded, -1 when the user does not have the token.
    private static let unregisterUnlessSuperseded = RedisScript("""
        local tokens = KEYS[2]
        local registered = redis.call('HGET', tokens, ARGV[3])
        if not registered then return -1 end
        if tonumber(registered) > tonumber(ARGV[4]) then return 0 end
        redis.call('HDEL', tokens, ARGV[3])
        if redis.call('GET', KEYS[1]) == ARGV[2] then redis.call('DEL', KEYS[1]) end
        return 1
        """)

    /// Applies `registrations` in order, in one round trip: each registers or unregisters its token
    /// unless a later registration of the token stands, and a record with a locale or a time zone
    /// sets it in the user's profile. Applying the same records again changes nothing more, so a batch read again
    /// after a crash is harmless. Returns one effect per record.
    ///
    /// - Throws: the connection's error, or the first error reply (a failed call may have applied
    ///   part of the batch; applying it again is safe).
    public func apply(_ registrations: [TokenRegistration]) throws(RedisError) -> [RegistrationEffect] {
        var commands: [RedisCommand] = []
        var scriptIndices: [Int] = []
        for registration in registrations {
            let environment = registration.environment.rawValue
            let script = registration.action == .register ? Self.registerUnlessSuperseded : Self.unregisterUnlessSuperseded
            scriptIndices.append(commands.count)
            commands.append(.evalSHA(script, keys: [Self.ownerKey(registration.app, environment, registration.token),
                                                    Self.tokensKey(registration.app, environment, registration.user)],
                                     arguments: [Self.tokensKey(registration.app, environment, ""), registration.user,
                                                 registration.token.hex, String(registration.occurredAt)]))
            if let profile = Self.profileWrite(registration) { commands.append(profile) }
        }
        let replies = try connection.pipeline(commands)
        if let error = replies.lazy.compactMap(\.error).first { throw error }
        return scriptIndices.map { index in
            switch replies[index].integer {
            case 1: .applied
            case -1: .notRegistered
            default: .superseded
            }
        }
    }
}
