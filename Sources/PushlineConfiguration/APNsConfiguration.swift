import APNsClient

/// The APNs side: named credentials, and the connection pools that use them.
public struct APNsConfiguration: Sendable {
    /// By name, as `apns.credentials` lists them.
    public var credentials: [String: APNsCredentialsConfiguration] = [:]
    public var pools: [APNsPoolConfiguration] = []
    /// Retries, circuits and the request timeout of every pool.
    public var delivery = APNsDeliveryConfiguration()
    /// The names of every pool in the file, the unusable ones included.
    var declaredPoolNames: Set<String> = []

    public init() {}

    /// Reads the `apns` section.
    init(reading section: inout ConfigurationSection) {
        var known: Set<String> = []
        for (name, var entry) in section.namedSections("credentials") {
            known.insert(name)
            credentials[name] = APNsCredentialsConfiguration.read(&entry)
        }
        for var entry in section.sequence("pools") {
            if let pool = APNsPoolConfiguration.read(&entry, credentialNames: known, poolNames: &declaredPoolNames) { pools.append(pool) }
        }
        delivery.read(&section)
        section.finish()
    }

    /// The sender of `pool`, holding deliveries through outages for at most `maximumHold` (the
    /// pipeline's `max_hold`).
    public func senderConfiguration(for pool: APNsPoolConfiguration, maximumHold: Duration) -> SenderConfiguration {
        var configuration = pool.senderConfiguration
        delivery.apply(to: &configuration, maximumHold: maximumHold)
        return configuration
    }
}
