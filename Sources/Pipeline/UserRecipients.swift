/// A user of one app and environment whose devices a batch of intents needs.
public struct UserQuery: Sendable, Hashable {
    public var user: String
    public var app: String
    public var environment: String

    public init(user: String, app: String, environment: String) {
        self.user = user
        self.app = app
        self.environment = environment
    }
}

/// What the token registry knows of a ``UserQuery``'s user: the devices registered for the app and
/// environment, and the profile locale (nil when unknown).
public struct UserRecipients: Sendable, Equatable {
    public var devices: [TokenRegistry.Device]
    public var locale: String?

    public init(devices: [TokenRegistry.Device], locale: String?) {
        self.devices = devices
        self.locale = locale
    }
}
