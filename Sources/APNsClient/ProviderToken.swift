import APNsCore
import TLS

/// A signed APNs provider token: an ES256 JWT with header `{"alg":"ES256","kid":…}` and claims
/// `{"iss":…,"iat":…}` (spec §3.1), sent as `authorization: bearer <token>`.
public struct ProviderToken: Sendable, Equatable, CustomStringConvertible {
    /// The compact JWT, `header.claims.signature`, each part base64url.
    public let jwt: String
    /// When it was issued, UNIX seconds (the `iat` claim).
    public let issuedAt: Int64
    public let keyID: String
    public let teamID: String

    /// Signs a new token.
    public init(credentials: ProviderTokenCredentials, issuedAt: Int64) throws(OpenSSLError) {
        var header: [UInt8] = []
        let headerObject: JSONObject = ["alg": "ES256", "kid": .string(credentials.keyID)]
        JSONWriter.appendValue(.object(headerObject), to: &header)
        var claims: [UInt8] = []
        let claimsObject: JSONObject = ["iss": .string(credentials.teamID), "iat": .integer(issuedAt)]
        JSONWriter.appendValue(.object(claimsObject), to: &claims)

        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try credentials.signingKey.sign(Array(signingInput.utf8))
        self.jwt = signingInput + "." + Base64URL.encode(signature)
        self.issuedAt = issuedAt
        self.keyID = credentials.keyID
        self.teamID = credentials.teamID
    }

    /// The `authorization` header value.
    public var authorization: String { "bearer " + jwt }

    /// Never the token itself: a provider token is a credential for up to an hour.
    public var description: String { "ProviderToken(keyID: \(keyID), teamID: \(teamID), issuedAt: \(issuedAt))" }
}
