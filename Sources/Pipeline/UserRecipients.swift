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
/// environment, and the profile (locale and time zone, each nil when unknown).
public struct UserRecipients: Sendable, Equatable {
    public var devices: [TokenRegistry.Device]
    public var profile: UserProfile

    /// The profile locale (BCP 47), nil when unknown.
    public var locale: String? { profile.locale }
    /// The profile time zone (IANA), nil when unknown.
    public var timeZone: String? { profile.timeZone }

    public init(devices: [TokenRegistry.Device], profile: UserProfile) {
        self.devices = devices
        self.profile = profile
    }
}

/// A user's profile in the token registry: the locale templates are rendered in, and the time zone
/// quiet hours are kept in (an IANA name). Both are per user, across apps and environments.
public struct UserProfile: Sendable, Equatable {
    public var locale: String?
    public var timeZone: String?

    public init(locale: String? = nil, timeZone: String? = nil) {
        self.locale = locale
        self.timeZone = timeZone
    }
}
