import APNsCore

/// Everything an ``APNsSimulator`` is started with. Defaults give a sandbox APNs that trusts the
/// development key, accepts any well-formed device token and injects no faults.
public struct SimulatorConfiguration: Sendable {
    /// The environment played: `apns-unique-id` is sent only in sandbox, and registered tokens of
    /// the other environment get `BadDeviceToken`.
    public var environment: SimulatorEnvironment = .sandbox
    /// Trusted provider keys, by key id, besides the development key.
    public var providerKeys: [ProviderKey] = []
    /// Whether the development key of `Config/dev/` (DEVKEY0001, team DEVTEAM001) is trusted.
    public var trustsDevelopmentKey = true
    /// The device registry; open by default.
    public var devices: DeviceRegistry = .open
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` once a connection is authenticated (APNs: typically 1000).
    public var maxConcurrentStreams = 1000
    /// Like APNs: drop the stream limit to 1 after any rejection and restore it after an
    /// acceptance (spec §5.2).
    public var collapseStreams = false
    /// After this many consecutive authentication failures a connection gets GOAWAY with the last
    /// reason; 0 = never.
    public var authFailuresBeforeGoAway = 10
    /// After `ExpiredProviderToken` every later request on the connection gets it too, whatever
    /// its token: the connection is finished, as Pushy observed ("wedged", spec §3.2).
    public var wedgesAfterExpiredToken = true
    /// The reason for a key of the other environment: Apple's documented spelling by default, or
    /// the observed `BadEnvironmentKeyInToken` (spec §9.1).
    public var environmentKeyReason: RejectionReason = .badEnvironmentKeyIdInToken
    /// Faults at start; change them later with ``APNsSimulator/setFaults(_:)``.
    public var faults = SimulatorFaults()
    /// Seeds the generator behind fault draws, jitter, generated ids and channel ids; set it to
    /// repeat a run. Random by default, so two runs do not hand out the same ids.
    public var randomSeed = UInt64.random(in: .min ... .max)
    /// Where accepted notifications are appended as JSON lines; nil = memory only.
    public var inboxFile: String?
    /// The inbox keeps at most this many notifications in memory, dropping the oldest.
    public var inboxCapacity = 100_000
    /// Channels one app may have (APNs: 10,000 per app and environment), then
    /// `CannotCreateChannelConfig`.
    public var channelsPerApp = 10_000

    /// The defaults described on each property.
    public init() {}

    /// Trusts the `.p8` or public PEM key in `file` for `teamID` (the `--provider-key` flag).
    public mutating func trustKey(id keyID: String, teamID: String, pemFile file: String) throws(SimulatorConfigurationError) {
        providerKeys.append(try ProviderKey(keyID: keyID, teamID: teamID, pemFile: file))
    }
}
