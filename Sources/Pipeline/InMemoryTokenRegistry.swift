import APNsCore
import Synchronization

/// ``TokenRegistry`` kept in this process instead of Redis, with the same semantics (docs/tokens.md,
/// docs/pipeline-stores.md): for `pushline-dev demo` when redis-server is not installed. Nothing is
/// kept when the process ends. Safe from any thread (a `Mutex`); never throws.
public final class InMemoryTokenRegistry: TokenStore, Sendable {
    /// The registry's contents, keyed like the Redis keys (``TokenRegistry``).
    private struct Contents {
        /// Tokens key → token hex → registration time (ms).
        var tokens: [String: [String: Int64]] = [:]
        /// Owner key → user.
        var owners: [String: String] = [:]
        /// User → profile (locale, time zone).
        var profiles: [String: UserProfile] = [:]

        /// When `user` registered `token`, if they have it.
        func registeredAt(_ prefix: String, _ user: String, _ token: DeviceToken) -> Int64? {
            tokens[prefix + user]?[token.hex]
        }

        mutating func removeToken(_ prefix: String, _ user: String, _ token: DeviceToken) {
            tokens[prefix + user]?[token.hex] = nil
            if tokens[prefix + user]?.isEmpty == true { tokens[prefix + user] = nil }
        }

        /// ``TokenRegistry/apply(_:)``'s register script: applied unless the token was registered
        /// later, by this user or the one it moves from.
        mutating func register(_ registration: TokenRegistration, prefix: String, ownerKey: String) -> TokenRegistry.RegistrationEffect {
            let (user, token, at) = (registration.user, registration.token, registration.occurredAt)
            if let owner = owners[ownerKey], owner != user {
                if registeredAt(prefix, owner, token) ?? -1 > at { return .superseded }
                removeToken(prefix, owner, token)
            }
            if registeredAt(prefix, user, token) ?? -1 > at { return .superseded }
            tokens[prefix + user, default: [:]][token.hex] = at
            owners[ownerKey] = user
            return .applied
        }

        /// ``TokenRegistry/apply(_:)``'s unregister script: removed unless registered again later.
        mutating func unregister(_ registration: TokenRegistration, prefix: String, ownerKey: String) -> TokenRegistry.RegistrationEffect {
            let (user, token) = (registration.user, registration.token)
            guard let registered = registeredAt(prefix, user, token) else { return .notRegistered }
            if registered > registration.occurredAt { return .superseded }
            removeToken(prefix, user, token)
            if owners[ownerKey] == user { owners[ownerKey] = nil }
            return .applied
        }
    }

    private let contents = Mutex(Contents())

    public init() {}

    /// Every user's devices, in the order of `users`, each user's in order of registration.
    public func devices(users: [String], app: String, environment: String) -> [[TokenRegistry.Device]] {
        contents.withLock { contents in
            users.map { user in
                (contents.tokens[TokenRegistry.tokensKey(app, environment, user)] ?? [:])
                    .compactMap { hex, registeredAt in (try? DeviceToken(hex)).map { TokenRegistry.Device(token: $0, registeredAt: registeredAt) } }
                    .sorted { ($0.registeredAt, $0.token.hex) < ($1.registeredAt, $1.token.hex) }
            }
        }
    }

    @discardableResult
    public func remove(app: String, environment: String, token: DeviceToken, invalidatedAt: Int64) -> Bool {
        let ownerKey = TokenRegistry.ownerKey(app, environment, token)
        let prefix = TokenRegistry.tokensKey(app, environment, "")
        return contents.withLock { contents in
            guard let user = contents.owners[ownerKey] else { return false }
            if contents.registeredAt(prefix, user, token) ?? -1 > invalidatedAt { return false }
            contents.removeToken(prefix, user, token)
            contents.owners[ownerKey] = nil
            return true
        }
    }

    public func setLocale(_ locale: String, user: String) {
        contents.withLock { $0.profiles[user, default: UserProfile()].locale = locale }
    }

    public func profiles(users: [String]) -> [UserProfile] {
        contents.withLock { contents in users.map { contents.profiles[$0] ?? UserProfile() } }
    }

    public func recipients(_ queries: [UserQuery]) -> [UserRecipients] {
        queries.map { query in
            UserRecipients(devices: devices(users: [query.user], app: query.app, environment: query.environment)[0],
                           profile: profiles(users: [query.user])[0])
        }
    }

    /// Applies the records in order, under one lock, as ``TokenRegistry/apply(_:)`` does in one
    /// round trip: a record's locale and time zone are set whatever its effect.
    public func apply(_ registrations: [TokenRegistration]) -> [TokenRegistry.RegistrationEffect] {
        contents.withLock { contents in
            registrations.map { registration in
                let environment = registration.environment.rawValue
                let prefix = TokenRegistry.tokensKey(registration.app, environment, "")
                let ownerKey = TokenRegistry.ownerKey(registration.app, environment, registration.token)
                let effect = registration.action == .register
                    ? contents.register(registration, prefix: prefix, ownerKey: ownerKey)
                    : contents.unregister(registration, prefix: prefix, ownerKey: ownerKey)
                if let locale = registration.locale { contents.profiles[registration.user, default: UserProfile()].locale = locale }
                if let zone = registration.timeZone { contents.profiles[registration.user, default: UserProfile()].timeZone = zone }
                return effect
            }
        }
    }
}
