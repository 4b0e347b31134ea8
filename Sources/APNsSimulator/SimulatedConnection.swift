import APNsCore

/// The simulator's state for one client connection: how it authenticates, the provider token it
/// is bound to, when that token last changed, the stream limit it advertises, and its error count.
///
/// Owned by the connection's event-loop thread; not `Sendable`.
public final class SimulatedConnection {
    /// Which service the connection reached.
    public let port: ServicePort
    /// The topics of the client certificate, or nil for a token-authenticated connection.
    public let certificateTopics: [String]?
    /// The `SETTINGS_MAX_CONCURRENT_STREAMS` the connection currently advertises.
    public internal(set) var maxConcurrentStreams: Int
    /// How many provider tokens were checked cryptographically on this connection: once per
    /// distinct token, not per request.
    public internal(set) var tokenVerifications = 0

    /// The token the connection uses now (its bytes, matched against each request's in place), and
    /// its claims.
    var currentToken: (jwt: [UInt8], claims: VerifiedProviderToken)?
    /// Other tokens already checked on this connection (nil = invalid), so a client that keeps
    /// sending a bad or refused token is not verified again for every request.
    var checkedTokens: [String: VerifiedProviderToken?] = [:]
    /// When the connection last switched to a different valid token, UNIX milliseconds.
    var lastTokenChange: Int64?
    /// Whether the connection answered `ExpiredProviderToken`.
    var sawExpiredToken = false
    /// Authentication failures since the last success.
    var consecutiveAuthFailures = 0
    /// Requests handled so far.
    var streams = 0
    /// Whether a GOAWAY has been queued; the connection is then finishing.
    var goingAway = false
    private var effects: [ConnectionEffect] = []
    /// Generates this connection's ids without taking the simulator's lock.
    private var random: SeededRandom

    init(port: ServicePort, certificateTopics: [String]?, maxConcurrentStreams: Int, random: SeededRandom) {
        self.port = port
        self.certificateTopics = certificateTopics
        self.maxConcurrentStreams = maxConcurrentStreams
        self.random = random
    }

    /// A generated `apns-id`/`apns-request-id`: upper case, as APNs has been seen sending them
    /// (spec §1.5), so clients that compare case-sensitively find out here.
    func generatedID() -> String {
        NotificationID.random(using: &random).upperCaseDescription
    }

    /// A fresh `apns-unique-id` (written in lower case, as observed).
    func uniqueID() -> NotificationID {
        NotificationID.random(using: &random)
    }

    /// Whether the client authenticates with provider tokens rather than a certificate.
    var usesProviderTokens: Bool { certificateTopics == nil }

    /// The effects queued by ``APNsSimulator/handle(_:on:)`` since the last call, oldest first.
    public func takeEffects() -> [ConnectionEffect] {
        defer { effects.removeAll() }
        return effects
    }

    func queue(_ effect: ConnectionEffect) {
        if case .goAway = effect { goingAway = true }
        effects.append(effect)
    }
}
