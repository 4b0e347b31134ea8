import APNsCore

/// A device to deliver to, as the caller resolved it: explicit tokens from the intent, or the
/// token registry's answer for a `user` (with the language of that user's profile).
public struct RecipientDevice: Sendable, Equatable {
    public var token: DeviceToken
    public var environment: Intent.Environment
    /// The BCP 47 language of the user's profile; used when the intent names no locale.
    public var profileLocale: String?

    /// A device, with the language of its user's profile when the pipeline knows it.
    public init(token: DeviceToken, environment: Intent.Environment, profileLocale: String? = nil) {
        self.token = token
        self.environment = environment
        self.profileLocale = profileLocale
    }
}
