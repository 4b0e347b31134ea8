#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TLS
import Runtime

/// When a provider token is replaced. APNs rejects tokens older than an hour
/// (`ExpiredProviderToken`) and tokens changed more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`), so the interval is kept inside that window.
public struct ProviderTokenRefreshPolicy: Sendable, Equatable {
    /// APNs' lower bound: never sign a new token sooner than this after the last one.
    public static let minimumInterval: Int64 = 20 * 60
    /// Leaves five minutes of the hour for clock skew and requests in flight.
    public static let maximumInterval: Int64 = 55 * 60
    /// Pushy's default, and the middle of Apple's 20–60 minute window.
    public static let standard = ProviderTokenRefreshPolicy(refreshIntervalSeconds: 50 * 60)

    /// Seconds a token is used before a new one is signed, within 20…55 minutes.
    public let refreshIntervalSeconds: Int64

    /// Clamps `refreshIntervalSeconds` into 20…55 minutes.
    public init(refreshIntervalSeconds: Int64) {
        self.refreshIntervalSeconds = min(max(refreshIntervalSeconds, Self.minimumInterval), Self.maximumInterval)
    }
}

/// Hands out one team's provider token, signing a new one only when the cached one has reached the
/// policy's age. Thread-safe; signing happens at most once per refresh interval, not per request.
public final class ProviderTokenSource: Sendable {
    public let credentials: ProviderTokenCredentials
    public let policy: ProviderTokenRefreshPolicy
    /// The clock tokens are issued by, UNIX seconds; connections measure token age with it too.
    public let now: @Sendable () -> Int64
    private let cached = Mutex<ProviderToken?>(nil)

    /// - Parameter now: the current UNIX time in seconds; injectable so tests can move time.
    public init(credentials: ProviderTokenCredentials, policy: ProviderTokenRefreshPolicy = .standard,
                now: @escaping @Sendable () -> Int64 = ProviderTokenSource.systemNow) {
        self.credentials = credentials
        self.policy = policy
        self.now = now
    }

    /// The token to send now: the cached one while it is younger than the refresh interval,
    /// otherwise a newly signed one.
    public func currentToken() throws(OpenSSLError) -> ProviderToken {
        let issuedAt = now()
        return try cached.withLock { (cached: inout ProviderToken?) throws(OpenSSLError) -> ProviderToken in
            if let token = cached, issuedAt - token.issuedAt < policy.refreshIntervalSeconds {
                return token
            }
            let token = try ProviderToken(credentials: credentials, issuedAt: issuedAt)
            cached = token
            return token
        }
    }

    /// After APNs answered `ExpiredProviderToken` to `rejected`: a newly signed token, unless another
    /// caller already replaced it (then that newer one). The 20-minute rule is per connection, and
    /// the connection that saw the rejection is replaced, so signing now is allowed.
    public func replaceExpired(_ rejected: ProviderToken) throws(OpenSSLError) -> ProviderToken {
        let issuedAt = now()
        return try cached.withLock { (cached: inout ProviderToken?) throws(OpenSSLError) -> ProviderToken in
            if let token = cached, token != rejected { return token }
            let token = try ProviderToken(credentials: credentials, issuedAt: issuedAt)
            cached = token
            return token
        }
    }

    /// The wall clock, UNIX seconds.
    public static let systemNow: @Sendable () -> Int64 = { WallClock.millisecondsSinceEpoch() / 1000 }
}
