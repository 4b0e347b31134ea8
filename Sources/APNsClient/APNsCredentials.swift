import TLS

/// How a pool authenticates: provider tokens of one team (one pool per team, as APNs binds a
/// connection to a team), or a client certificate.
public enum APNsCredentials: Sendable, CustomStringConvertible {
    case token(ProviderTokenSource)
    /// A certificate and its key in PEM files.
    case certificate(certificateFile: String, privateKeyFile: String)
    /// A certificate and its key in one PKCS#12 file (`.p12`), and its password.
    case pkcs12(file: String, password: String)

    /// Ids only, never key material.
    public var description: String {
        switch self {
        case .token(let source): "token(keyID: \(source.credentials.keyID), teamID: \(source.credentials.teamID))"
        case .certificate(let file, _): "certificate(\(file))"
        case .pkcs12(let file, _): "pkcs12(\(file))"
        }
    }
}
