import Runtime
import TLS

/// One open connection to the server: its socket, its TLS session when the connection is encrypted,
/// and the RESP reader that decodes what arrives. They live and die together; a new connect makes a
/// new link.
///
/// With TLS, plaintext is encrypted into ``ciphertext`` and written from there; what the socket has
/// not taken yet is written before anything new, and ``wait(forWriting:until:while:)`` writes it
/// before it waits.
final class RedisLink {
    let socket: RedisSocket
    let reader = RESPReader()
    private let tls: TLSSession?
    /// Encrypted bytes not yet written, from ``ciphertextWritten`` on.
    private var ciphertext: [UInt8] = []
    private var ciphertextWritten = 0
    /// Decrypted bytes on their way to the reader, reused from read to read.
    private var plaintext: [UInt8] = []

    private init(socket: RedisSocket, tls: TLSSession?) {
        self.socket = socket
        self.tls = tls
    }

    /// Connects to `endpoint` and, with a TLS context, completes the handshake (verifying the
    /// server as the context says, its name against the host), all before `deadline`.
    static func open(to endpoint: RedisConfiguration.Endpoint, tls context: TLSContext?, deadline: Deadline) throws(RedisError) -> RedisLink {
        let socket = try RedisSocket.connect(to: endpoint, deadline: deadline)
        guard let context else { return RedisLink(socket: socket, tls: nil) }
        let serverName: String? = if case .tcp(let host, _) = endpoint { host } else { nil }
        let session: TLSSession
        do {
            session = try TLSSession(context: context, serverName: serverName)
        } catch {
            throw RedisError(.tls, "cannot start TLS to \(socket.peer): \(error)")
        }
        let link = RedisLink(socket: socket, tls: session)
        try link.handshake(session, until: deadline)
        return link
    }

    private func handshake(_ session: TLSSession, until deadline: Deadline) throws(RedisError) {
        do {
            try session.handshake()
        } catch {
            throw RedisError(.tls, "TLS handshake with \(socket.peer) failed: \(error)")
        }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { input.deallocate() }
        while !session.isHandshakeComplete {
            try wait(forWriting: false, until: deadline, while: "in the TLS handshake with")
            _ = try receive(into: input)
        }
        try flush()
    }

    /// Whether encrypted bytes are waiting for the socket.
    private var hasPendingCiphertext: Bool {
        ciphertextWritten < ciphertext.count
    }

    /// Takes what it can now of `bytes` from `offset` on; returns how many bytes (0 when the socket
    /// would block). With TLS, every byte taken is encrypted, and written as far as the socket takes it.
    func writeSome(_ bytes: [UInt8], from offset: Int) throws(RedisError) -> Int {
        guard let tls else { return try socket.writeSome(bytes, from: offset) }
        try flush()
        guard !hasPendingCiphertext else { return 0 }
        let encryptFailure: OpenSSLError? = bytes.withUnsafeBytes { all in
            do throws(OpenSSLError) { try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: all[offset...])) } catch { return error }
            return nil
        }
        if let encryptFailure { throw RedisError(.tls, "cannot encrypt for \(socket.peer): \(encryptFailure)") }
        try flush()
        return bytes.count - offset
    }

    /// Writes pending ciphertext as far as the socket takes it.
    private func flush() throws(RedisError) {
        guard let tls else { return }
        if !hasPendingCiphertext {
            ciphertext.removeAll(keepingCapacity: true)
            ciphertextWritten = 0
        }
        tls.takeCiphertext(into: &ciphertext)
        while hasPendingCiphertext {
            let written = try socket.writeSome(ciphertext, from: ciphertextWritten)
            guard written > 0 else { return }
            ciphertextWritten += written
        }
    }

    /// Waits until the socket is readable (or writable, when `forWriting` or when ciphertext is
    /// pending, which is written first), or throws ``RedisError/Code/timeout`` once `deadline` passes.
    func wait(forWriting: Bool, until deadline: Deadline, while step: String) throws(RedisError) {
        try flush()
        try socket.wait(forWriting: forWriting || hasPendingCiphertext, until: deadline, while: step)
    }

    /// Reads what has arrived (through `buffer`) and hands the plaintext to ``reader``; returns how
    /// many plaintext bytes that was (0 when nothing, or only TLS records of its own, arrived).
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(RedisError) -> Int {
        let received = try socket.readSome(into: buffer)
        guard received > 0 else { return 0 }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<received])
        guard let tls else {
            try reader.feed(bytes)
            return received
        }
        tls.receiveCiphertext(bytes)
        plaintext.removeAll(keepingCapacity: true)
        let status: TLSSession.ReadStatus
        do {
            status = try tls.readPlaintext(into: &plaintext)
        } catch {
            throw RedisError(.tls, "TLS with \(socket.peer) failed: \(error)")
        }
        if !plaintext.isEmpty {
            let feedFailure: RedisError? = plaintext.withUnsafeBytes { bytes in
                do throws(RedisError) { try reader.feed(bytes) } catch { return error }
                return nil
            }
            if let feedFailure { throw feedFailure }
        }
        // Answers of the session's own (a key update) leave with the next write or wait.
        try flush()
        if status == .closed { throw RedisError(.connectionLost, "\(socket.peer) closed the TLS session") }
        return plaintext.count
    }

    /// Whether the server has closed the connection, or sent bytes nobody asked for, since the last
    /// call: either way the connection cannot carry a new request. With TLS, records of the session's
    /// own (TLS 1.3 session tickets) are read and do not count.
    var isStale: Bool {
        guard tls != nil else { return socket.isStale }
        var scratch = [UInt8](repeating: 0, count: 4096)
        // A few session records at most; a socket that stays readable without yielding plaintext is
        // treated as stale rather than read forever.
        for _ in 0..<8 {
            guard socket.isStale else { return false }
            let plaintextBytes = try? scratch.withUnsafeMutableBytes { buffer throws(RedisError) in try receive(into: buffer) }
            guard plaintextBytes == 0 else { return true }
        }
        return true
    }
}
