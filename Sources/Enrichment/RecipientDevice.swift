import APNsCore

/// A device to deliver to, as the caller resolved it: explicit tokens from the intent, or the
/// token registry's answer for a `user` (with the language of that user's profile).
public struct RecipientDevice: Sendable, Equatable {
    public var token: DeviceToken
    public var environment: Intent.Environment
    /// The BCP 47 language of the user's profile; used when the intent names no locale.
    public var profileLocale: String?
    /// The time zone of the user's profile (an IANA name), for quiet hours; nil for explicit tokens
    /// and users without one (the pipeline's default zone applies).
    public var profileTimeZone: String?

    /// A device, with the language and time zone of its user's profile when the pipeline knows them.
    public init(token: DeviceToken, environment: Intent.Environment, profileLocale: String? = nil, profileTimeZone: String? = nil) {
        self.token = token
        self.environment = environment
        self.profileLocale = profileLocale
        self.profileTimeZone = profileTimeZone
    }
}
