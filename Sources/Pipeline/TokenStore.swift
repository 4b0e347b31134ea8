import APNsCore
import Redis

/// Where the token registry lives: ``TokenRegistry`` in Redis, or ``InMemoryTokenRegistry`` in this
/// process (`pushline-dev demo` without redis-server). Both follow docs/pipeline-stores.md and
/// docs/tokens.md and pass the same behaviour tests; the in-memory one never fails.
public protocol TokenStore {
    /// Every user's devices, in the order of `users`.
    func devices(users: [String], app: String, environment: String) throws(RedisError) -> [[TokenRegistry.Device]]

    /// Removes a token APNs declared invalid at `invalidatedAt` (ms), unless it was registered
    /// again later. Returns whether it was removed.
    @discardableResult
    func remove(app: String, environment: String, token: DeviceToken, invalidatedAt: Int64) throws(RedisError) -> Bool

    /// Sets the user's profile locale.
    func setLocale(_ locale: String, user: String) throws(RedisError)

    /// Every user's profile (locale and time zone), in the order of `users`.
    func profiles(users: [String]) throws(RedisError) -> [UserProfile]

    /// Each query's devices and its user's profile (locale, time zone), in the order of `queries`:
    /// what a batch of user-addressed intents needs, in one round trip in Redis.
    func recipients(_ queries: [UserQuery]) throws(RedisError) -> [UserRecipients]

    /// Applies `pushline.tokens` records in order (the latest registration of a token wins); one
    /// effect per record, and applying the same records again changes nothing more.
    func apply(_ registrations: [TokenRegistration]) throws(RedisError) -> [TokenRegistry.RegistrationEffect]
}

extension TokenStore {
    /// Every user's locale (nil when unknown).
    public func locales(users: [String]) throws(RedisError) -> [String?] {
        try profiles(users: users).map(\.locale)
    }
}
