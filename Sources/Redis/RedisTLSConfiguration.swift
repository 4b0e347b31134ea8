import TLS

/// TLS to Redis (`redis-server --tls-port`, managed Redis services), over Pushline's own OpenSSL
/// layer (``TLSSession`` on the connection's socket). The server's certificate is verified by default:
/// against ``certificateAuthorityFile`` when given, else the system's CA store, and its name against the
/// host connected to.
public struct RedisTLSConfiguration: Sendable, Equatable {
    /// PEM file of the CAs that sign the server's certificate; `nil` uses the system's CA store.
    public var certificateAuthorityFile: String?
    /// PEM certificate (chain) presented to a server that asks for client certificates.
    public var certificateFile: String?
    /// PEM private key of ``certificateFile``; `nil` reads it from ``certificateFile``.
    public var privateKeyFile: String?
    /// Skips verifying the server. Only for a local server with a throw-away certificate.
    public var insecureSkipVerify: Bool

    public init(certificateAuthorityFile: String? = nil, certificateFile: String? = nil, privateKeyFile: String? = nil,
                insecureSkipVerify: Bool = false) {
        self.certificateAuthorityFile = certificateAuthorityFile
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.insecureSkipVerify = insecureSkipVerify
    }

    /// The OpenSSL context every connection of one ``RedisConnection`` shares (cluster nodes and
    /// sentinels included). A file that cannot be read fails as ``RedisError/Code/invalidConfiguration``.
    func makeContext() throws(RedisError) -> TLSContext {
        let verification: TLSContext.ServerVerification = if insecureSkipVerify {
            .insecureNoVerification
        } else if let certificateAuthorityFile {
            .certificateAuthorities(file: certificateAuthorityFile)
        } else {
            .systemTrustStore
        }
        do {
            return try TLSContext.client(alpn: [], verification: verification, certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        } catch {
            throw RedisError(.invalidConfiguration, "cannot set up TLS to Redis: \(error)")
        }
    }
}
