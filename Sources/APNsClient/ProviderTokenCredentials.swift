import APNsCore
import TLS

/// What signs a team's provider tokens: the `.p8` key with its key id, and the team id.
///
/// The key never leaves this value: ``description`` shows only the ids, so credentials can be
/// logged safely.
public struct ProviderTokenCredentials: Sendable, CustomStringConvertible {
    /// The 10-character key id (`kid`) from the developer account.
    public let keyID: String
    /// The 10-character team id (`iss`).
    public let teamID: String
    let signingKey: ES256SigningKey

    public init(keyID: String, teamID: String, signingKey: ES256SigningKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.signingKey = signingKey
    }

    /// Reads a `.p8` key (PKCS#8 PEM of a P-256 key).
    public init(keyID: String, teamID: String, p8: String) throws(OpenSSLError) {
        self.init(keyID: keyID, teamID: teamID, signingKey: try ES256SigningKey(pem: p8))
    }

    public var description: String { "ProviderTokenCredentials(keyID: \(keyID), teamID: \(teamID))" }
}
