import TLS

/// How a pool authenticates: provider tokens of one team (one pool per team, as APNs binds a
/// connection to a team), or a client certificate.
public enum APNsCredentials: Sendable, CustomStringConvertible {
    case token(ProviderTokenSource)
    /// A certificate and its key in PEM files (a PKCS#12 file must be converted to PEM first).
    case certificate(certificateFile: String, privateKeyFile: String)

    /// Ids only, never key material.
    public var description: String {
        switch self {
        case .token(let source): "token(keyID: \(source.credentials.keyID), teamID: \(source.credentials.teamID))"
        case .certificate(let file, _): "certificate(\(file))"
        }
    }
}
