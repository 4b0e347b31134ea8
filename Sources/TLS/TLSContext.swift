internal import COpenSSL
internal import CPushlineShims

/// Shared TLS settings for many connections (one OpenSSL `SSL_CTX`): TLS 1.2 or later, ALPN, the
/// certificate and key of a server or of a client using certificate authentication, and how the
/// peer is verified.
///
/// Immutable after creation; OpenSSL allows one `SSL_CTX` to create sessions on many threads.
public final class TLSContext: @unchecked Sendable {
    // Safe to share: configured once in `init`, then only read by `SSL_new` (thread-safe in OpenSSL 3).
    let context: OpaquePointer
    /// ALPN protocols in wire format (length-prefixed), kept alive for the server's select callback.
    private let alpnWire: [UInt8]
    public let isServer: Bool

    /// A server context: presents `certificateFile` (PEM chain) with `privateKeyFile` (PEM), offers
    /// `alpn` (for example `["h2"]`), and also accepts clients that send no ALPN (HTTP/2 prior
    /// knowledge, which APNs tolerates). With `requestClientCertificate` a client may present a
    /// certificate (read with ``TLSSession/peerCertificateSubjectUIDs``); it is not verified.
    public static func server(certificateFile: String, privateKeyFile: String, alpn: [String],
                              requestClientCertificate: Bool = false) throws(OpenSSLError) -> TLSContext {
        let context = try TLSContext(method: TLS_server_method(), alpn: alpn, isServer: true)
        guard SSL_CTX_use_certificate_chain_file(context.context, certificateFile) == 1 else {
            throw .drainingQueue(operation: "load certificate \(certificateFile)")
        }
        guard SSL_CTX_use_PrivateKey_file(context.context, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw .drainingQueue(operation: "load private key \(privateKeyFile)")
        }
        guard SSL_CTX_check_private_key(context.context) == 1 else {
            throw .drainingQueue(operation: "match private key to certificate")
        }
        if requestClientCertificate {
            SSL_CTX_set_verify(context.context, SSL_VERIFY_PEER, acceptAnyCertificate)
        }
        return context
    }

    /// How a client checks the server.
    public enum ServerVerification: Sendable {
        /// Against the system's CA store (the default, as for api.push.apple.com).
        case systemTrustStore
        /// Against the CAs in this PEM file only.
        case certificateAuthorities(file: String)
        /// Not at all. Only for local tests against a self-signed server, behind an explicit flag.
        case insecureNoVerification
    }

    /// A client context offering `alpn`, verifying the server as `verification` says, and presenting
    /// a client certificate when `certificateFile` is given (certificate-based APNs auth).
    public static func client(alpn: [String], verification: ServerVerification,
                              certificateFile: String? = nil, privateKeyFile: String? = nil) throws(OpenSSLError) -> TLSContext {
        let context = try TLSContext(method: TLS_client_method(), alpn: alpn, isServer: false)
        switch verification {
        case .systemTrustStore:
            guard SSL_CTX_set_default_verify_paths(context.context) == 1 else {
                throw .drainingQueue(operation: "load system CA certificates")
            }
            SSL_CTX_set_verify(context.context, SSL_VERIFY_PEER, nil)
        case .certificateAuthorities(let file):
            guard SSL_CTX_load_verify_locations(context.context, file, nil) == 1 else {
                throw .drainingQueue(operation: "load CA file \(file)")
            }
            SSL_CTX_set_verify(context.context, SSL_VERIFY_PEER, nil)
        case .insecureNoVerification:
            SSL_CTX_set_verify(context.context, SSL_VERIFY_NONE, nil)
        }
        guard SSL_CTX_set_alpn_protos(context.context, context.alpnWire, UInt32(context.alpnWire.count)) == 0 else {
            throw .drainingQueue(operation: "set ALPN")
        }
        if let certificateFile {
            guard SSL_CTX_use_certificate_chain_file(context.context, certificateFile) == 1 else {
                throw .drainingQueue(operation: "load client certificate \(certificateFile)")
            }
            guard SSL_CTX_use_PrivateKey_file(context.context, privateKeyFile ?? certificateFile, SSL_FILETYPE_PEM) == 1 else {
                throw .drainingQueue(operation: "load client certificate key")
            }
        }
        return context
    }

    /// A client context presenting the certificate and key of a PKCS#12 file (`.p12`, as Apple's
    /// push certificates are exported), opened with `password`.
    public static func client(alpn: [String], verification: ServerVerification, pkcs12File: String,
                              password: String) throws(OpenSSLError) -> TLSContext {
        let context = try client(alpn: alpn, verification: verification)
        guard let bio = BIO_new_file(pkcs12File, "rb") else { throw .drainingQueue(operation: "open PKCS#12 file \(pkcs12File)") }
        defer { BIO_free(bio) }
        guard let bundle = d2i_PKCS12_bio(bio, nil) else { throw .drainingQueue(operation: "read PKCS#12 file \(pkcs12File)") }
        defer { PKCS12_free(bundle) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        guard PKCS12_parse(bundle, password, &key, &certificate, nil) == 1, let key, let certificate else {
            throw .drainingQueue(operation: "open PKCS#12 file \(pkcs12File) (wrong password?)")
        }
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
        }
        guard SSL_CTX_use_certificate(context.context, certificate) == 1, SSL_CTX_use_PrivateKey(context.context, key) == 1 else {
            throw .drainingQueue(operation: "use the certificate of \(pkcs12File)")
        }
        return context
    }

    private init(method: OpaquePointer?, alpn: [String], isServer: Bool) throws(OpenSSLError) {
        guard let context = SSL_CTX_new(method) else { throw .drainingQueue(operation: "create TLS context") }
        self.context = context
        self.isServer = isServer
        self.alpnWire = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        guard pushline_ssl_ctx_require_tls12(context) == 1 else { throw .drainingQueue(operation: "require TLS 1.2") }
        if isServer {
            SSL_CTX_set_alpn_select_cb(context, selectALPN, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    fileprivate func select(_ offered: UnsafePointer<UInt8>, _ offeredLength: UInt32,
                            _ selected: UnsafeMutablePointer<UnsafePointer<UInt8>?>,
                            _ selectedLength: UnsafeMutablePointer<UInt8>) -> Int32 {
        alpnWire.withUnsafeBufferPointer { supported -> Int32 in
            var out: UnsafeMutablePointer<UInt8>?
            let result = SSL_select_next_proto(&out, selectedLength, supported.baseAddress, UInt32(supported.count),
                                               offered, offeredLength)
            guard result == OPENSSL_NPN_NEGOTIATED, let out else { return SSL_TLSEXT_ERR_NOACK }
            // `out` points into `offered` (the ClientHello), which outlives this callback.
            selected.pointee = UnsafePointer(out)
            return SSL_TLSEXT_ERR_OK
        }
    }
}

/// ALPN selection: pick our protocol from the client's list; with no overlap, continue without
/// ALPN (`NOACK`) rather than failing the handshake.
private func selectALPN(_ ssl: OpaquePointer?, _ selected: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
                        _ selectedLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?,
                        _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let selected, let selectedLength, let offered, let argument else { return SSL_TLSEXT_ERR_NOACK }
    let context = Unmanaged<TLSContext>.fromOpaque(argument).takeUnretainedValue()
    return context.select(offered, offeredLength, selected, selectedLength)
}

/// The simulator reads client certificates for their topics only; it does not judge them.
private func acceptAnyCertificate(_ preverified: Int32, _ store: OpaquePointer?) -> Int32 {
    1
}
