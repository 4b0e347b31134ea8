internal import COpenSSL
internal import CPushlineShims

/// One TLS connection's state (an OpenSSL `SSL` over two memory BIOs): the caller moves ciphertext
/// between the socket and this session, so the socket and its event loop stay in Swift.
///
/// Not thread-safe: a session belongs to the event loop of its connection.
public final class TLSSession {
    /// What a read of plaintext found.
    public enum ReadStatus: Equatable {
        /// More ciphertext is needed (any plaintext available was appended).
        case needMoreInput
        /// The peer sent close_notify.
        case closed
    }

    private let ssl: OpaquePointer
    /// Room for the largest TLS record's plaintext.
    private var recordBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    private let networkIn: OpaquePointer
    private let networkOut: OpaquePointer
    public let context: TLSContext

    /// A session for one connection. A client sends `serverName` as SNI and, when verification is
    /// on, checks that the certificate names that host.
    public init(context: TLSContext, serverName: String? = nil) throws(OpenSSLError) {
        guard let ssl = SSL_new(context.context) else { throw .drainingQueue(operation: "create TLS session") }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .drainingQueue(operation: "create TLS buffers")
        }
        SSL_set_bio(ssl, input, output)
        self.ssl = ssl
        self.networkIn = input
        self.networkOut = output
        self.context = context
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let serverName {
                guard pushline_ssl_set_server_name(ssl, serverName) == 1, SSL_set1_host(ssl, serverName) == 1 else {
                    throw .drainingQueue(operation: "set server name \(serverName)")
                }
            }
        }
    }

    deinit {
        SSL_free(ssl) // frees both BIOs
    }

    /// Whether the handshake has finished.
    public var isHandshakeComplete: Bool { SSL_is_init_finished(ssl) == 1 }

    /// The protocol chosen by ALPN, or nil when the peer offered none (prior knowledge).
    public var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Advances the handshake (a client calls this first to produce its ClientHello).
    public func handshake() throws(OpenSSLError) {
        let result = SSL_do_handshake(ssl)
        if result != 1 { try check(result, operation: "TLS handshake") }
    }

    /// Hands ciphertext read from the socket to OpenSSL.
    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(networkIn, base, Int32(bytes.count))
    }

    /// Decrypts all complete records, appending plaintext to `plaintext`. Drives the handshake too.
    public func readPlaintext(into plaintext: inout [UInt8]) throws(OpenSSLError) -> ReadStatus {
        while true {
            // One TLS record (≤ 16 KiB) at a time, through a scratch buffer allocated once.
            let count = recordBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                recordBuffer.withUnsafeBytes { plaintext.append(contentsOf: $0[..<Int(count)]) }
                continue
            }
            let error = SSL_get_error(ssl, count)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needMoreInput
            case SSL_ERROR_ZERO_RETURN: return .closed
            default: throw failure("TLS read")
            }
        }
    }

    /// Encrypts `bytes`. Only after the handshake: before it, plaintext must wait.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(OpenSSLError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            let written = SSL_write(ssl, base + offset, Int32(bytes.count - offset))
            guard written > 0 else {
                try check(written, operation: "TLS write")
                return
            }
            offset += Int(written)
        }
    }

    /// Moves every pending ciphertext byte (records, handshake messages, alerts) to `ciphertext`.
    public func takeCiphertext(into ciphertext: inout [UInt8]) {
        let pending = Int(BIO_ctrl_pending(networkOut))
        guard pending > 0 else { return }
        if ciphertext.isEmpty {
            // Most of the time (a connection's whole output per flush): read straight into new
            // storage rather than zero-filling room first.
            ciphertext = [UInt8](unsafeUninitializedCapacity: pending) { buffer, count in
                count = Int(max(BIO_read(networkOut, buffer.baseAddress!, Int32(pending)), 0))
            }
            return
        }
        let start = ciphertext.count
        ciphertext.append(contentsOf: repeatElement(0, count: pending))
        let read = ciphertext.withUnsafeMutableBytes { buffer in
            BIO_read(networkOut, buffer.baseAddress! + start, Int32(pending))
        }
        ciphertext.removeSubrange((start + Int(max(read, 0)))...)
    }

    /// Queues a close_notify alert.
    public func close() {
        _ = SSL_shutdown(ssl)
    }

    /// The `UID` attributes of the peer certificate's subject — where Apple's push certificates
    /// carry the bundle id (the topic). Empty without a peer certificate.
    public var peerCertificateSubjectUIDs: [String] {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return [] }
        defer { X509_free(certificate) }
        guard let subject = X509_get_subject_name(certificate) else { return [] }
        var values: [String] = []
        var index: Int32 = -1
        while true {
            index = X509_NAME_get_index_by_NID(subject, NID_userId, index)
            guard index >= 0, let entry = X509_NAME_get_entry(subject, index),
                  let data = X509_NAME_ENTRY_get_data(entry) else { break }
            let length = Int(ASN1_STRING_length(data))
            guard let bytes = ASN1_STRING_get0_data(data) else { continue }
            values.append(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
        }
        return values
    }

    private func check(_ result: Int32, operation: String) throws(OpenSSLError) {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return
        default: throw failure(operation)
        }
    }

    /// OpenSSL's queued error, with why the peer's certificate was refused when that is what failed:
    /// the queue only says "certificate verify failed"; the session knows the reason (an expired
    /// certificate, an unknown CA, a host name the certificate does not name…).
    private func failure(_ operation: String) -> OpenSSLError {
        let error = OpenSSLError.drainingQueue(operation: operation)
        let verification = SSL_get_verify_result(ssl)
        guard verification != X509_V_OK, let reason = X509_verify_cert_error_string(verification) else { return error }
        return OpenSSLError(operation: operation, reason: error.reason + " (" + String(cString: reason) + ")")
    }
}
