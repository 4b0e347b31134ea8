import APNsClient

/// One pool of HTTP/2 connections to APNs: which credentials, which environment, how many
/// connections, and which CA to trust.
public struct APNsPoolConfiguration: Sendable, CustomStringConvertible {
    /// What pipelines call the pool (`apns_pool`).
    public var name: String
    /// The name of an entry of `apns.credentials`.
    public var credentials: String
    public var environment: APNsEnvironment
    public var minimumConnections = SenderConfiguration().minimumConnections
    public var maximumConnections = SenderConfiguration().maximumConnections
    /// A PEM file of CAs to trust instead of the system store (for a local simulator).
    public var caFile: String?

    public init(name: String, credentials: String, environment: APNsEnvironment) {
        self.name = name
        self.credentials = credentials
        self.environment = environment
    }

    /// The sender's settings for this pool, the others left at their defaults.
    public var senderConfiguration: SenderConfiguration {
        var configuration = SenderConfiguration()
        configuration.minimumConnections = minimumConnections
        configuration.maximumConnections = maximumConnections
        configuration.caFile = caFile
        return configuration
    }

    public var description: String {
        "\(name) → \(environment) with \(credentials), \(minimumConnections)–\(maximumConnections) connections"
    }

    /// `production`, `sandbox`, or `host:port` (a simulator or a proxy).
    static var environmentType: ConfigurationValueType<APNsEnvironment> {
        ConfigurationValueType(expectation: "production, sandbox or host:port") { text throws(ConfigurationValueRejection) in
            switch text {
            case "production": return .production
            case "sandbox": return .sandbox
            default:
                let address = try ConfigurationValueType.hostAndPort.convert(text)
                return APNsEnvironment(host: address.host, port: address.port)
            }
        }
    }

    /// Reads one item of `apns.pools`; nil when a setting is missing or wrong (which is reported).
    /// Its name joins `poolNames`, even when the rest is wrong, so pipelines that use it are not
    /// reported again.
    static func read(_ section: inout ConfigurationSection, credentialNames: Set<String>,
                     poolNames: inout Set<String>) -> APNsPoolConfiguration? {
        defer { section.finish() }
        let name = section.required("name", .name)
        if let name, !poolNames.insert(name).inserted {
            section.report(.duplicate, "name", at: section.origin("name"), "another pool is also named \"\(name)\"")
        }
        let credentials = section.required("credentials", .name)
        if let credentials, !credentialNames.contains(credentials) {
            let known = credentialNames.isEmpty ? "none are defined" : "defined: \(credentialNames.sorted().joined(separator: ", "))"
            section.report(.unknownReference, "credentials", at: section.origin("credentials"),
                           "\"\(credentials)\" is not an entry of apns.credentials (\(known))")
        }
        let environment = section.required("environment", environmentType)
        let minimum = section.value("min_connections", .integer(0...64))
        let maximum = section.value("max_connections", .integer(1...64))
        let caFile = section.existingFile("ca_file")
        guard let name, let credentials, let environment else { return nil }
        var pool = APNsPoolConfiguration(name: name, credentials: credentials, environment: environment)
        pool.minimumConnections = minimum ?? pool.minimumConnections
        pool.maximumConnections = maximum ?? pool.maximumConnections
        pool.caFile = caFile
        guard pool.minimumConnections <= pool.maximumConnections else {
            section.report(.outOfRange, "min_connections", at: section.origin("min_connections"),
                           "\(pool.minimumConnections) is more than max_connections (\(pool.maximumConnections))")
            return nil
        }
        return pool
    }
}
