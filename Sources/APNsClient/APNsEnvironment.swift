/// Which APNs a pool talks to. Production and sandbox are different services with different device
/// tokens: the environment comes with each token and is never guessed.
public struct APNsEnvironment: Hashable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: UInt16
    /// The name used in keys, logs and metrics: `production`, `sandbox`, or `host:port`.
    public let name: String

    public init(host: String, port: UInt16, name: String? = nil) {
        self.host = host
        self.port = port
        self.name = name ?? "\(host):\(port)"
    }

    /// `api.push.apple.com:443`.
    public static let production = APNsEnvironment(host: "api.push.apple.com", port: 443, name: "production")
    /// `api.sandbox.push.apple.com:443`.
    public static let sandbox = APNsEnvironment(host: "api.sandbox.push.apple.com", port: 443, name: "sandbox")

    public var description: String { name }
}
