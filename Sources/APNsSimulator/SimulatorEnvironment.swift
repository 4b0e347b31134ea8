/// The APNs environment the simulator plays, and that a device token or a provider key belongs to.
public enum SimulatorEnvironment: String, Sendable, Equatable, CaseIterable {
    /// `api.sandbox.push.apple.com` (Apple also calls it development).
    case sandbox
    /// `api.push.apple.com`.
    case production

    /// Reads `sandbox` (or its other name, `development`) and `production`.
    public init?(name: String) {
        switch name {
        case "sandbox", "development": self = .sandbox
        case "production": self = .production
        default: return nil
        }
    }
}
