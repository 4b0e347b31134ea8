/// The claims of a provider token whose signature verified under a trusted key.
struct VerifiedProviderToken: Equatable {
    let keyID: String
    let teamID: String
    /// `iat`, UNIX seconds.
    let issuedAt: Int64
    /// The environment the key is limited to, if any.
    let keyEnvironment: SimulatorEnvironment?
}
