import Glibc
import Runtime

/// A non-blocking stream socket to a Redis server (TCP or Unix), owned by one connection and used
/// from one thread at a time. Waits go through `poll()` with a ``Deadline``; nothing here blocks
/// without one, except `getaddrinfo` for host names.
final class RedisSocket {
    private let descriptor: Int32
    /// The peer, for error messages: `host:port` or `unix:path`.
    let peer: String

    private init(descriptor: Int32, peer: String) {
        self.descriptor = descriptor
        self.peer = peer
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Connects to `endpoint`, trying each resolved address in turn, before `deadline`.
    static func connect(to endpoint: RedisConfiguration.Endpoint, deadline: Deadline) throws(RedisError) -> RedisSocket {
        switch endpoint {
        case .tcp(let host, let port):
            return try connectTCP(host: host, port: port, deadline: deadline)
        case .unixSocket(let path):
            return try connectUnix(path: path, deadline: deadline)
        }
    }

    private static func connectTCP(host: String, port: Int, deadline: Deadline) throws(RedisError) -> RedisSocket {
        let peer = "\(host):\(port)"
        let addresses: [SocketAddress]
        do {
            addresses = try SocketAddress.resolve(host: host, port: port)
        } catch {
            throw RedisError(.addressResolution, "cannot resolve \(host): \(error)")
        }
        var failure = RedisError(.connectionRefused, "no address for \(peer)")
        for address in addresses {
            do throws(RedisError) {
                let socket = try address.withSockaddr { sockaddr, length throws(RedisError) in
                    try connect(family: address.family, address: sockaddr, length: length, peer: peer, deadline: deadline)
                }
                var noDelay: Int32 = 1
                setsockopt(socket.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
                return socket
            } catch {
                failure = error
            }
        }
        throw failure
    }

    private static func connectUnix(path: String, deadline: Deadline) throws(RedisError) -> RedisSocket {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { field in
            guard pathBytes.count < field.count else { return false }
            field.copyBytes(from: pathBytes)
            return true
        }
        guard fits else {
            throw RedisError(.invalidConfiguration, "Unix socket path is longer than \(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes: \(path)")
        }
        return try withUnsafePointer(to: &address) { pointer throws(RedisError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(RedisError) in
                try connect(family: AF_UNIX, address: generic, length: socklen_t(MemoryLayout<sockaddr_un>.size), peer: "unix:\(path)", deadline: deadline)
            }
        }
    }

    private static func connect(
        family: Int32, address: UnsafePointer<sockaddr>?, length: socklen_t, peer: String, deadline: Deadline
    ) throws(RedisError) -> RedisSocket {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure(errno, "cannot create a socket for \(peer)") }
        let socket = RedisSocket(descriptor: descriptor, peer: peer)
        if Glibc.connect(descriptor, address, length) != 0 {
            guard errno == EINPROGRESS else { throw failure(errno, "cannot connect to \(peer)") }
            try socket.wait(forWriting: true, until: deadline, while: "connecting")
            var error: Int32 = 0
            var errorLength = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &errorLength)
            guard error == 0 else { throw failure(error, "cannot connect to \(peer)") }
        }
        return socket
    }

    /// Writes what the socket takes now of `bytes` from `offset` on; returns how many bytes (0 when
    /// it would block).
    func writeSome(_ bytes: [UInt8], from offset: Int) throws(RedisError) -> Int {
        while true {
            let written = bytes.withUnsafeBytes { all in
                send(descriptor, all.baseAddress.map { $0 + offset }, all.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written >= 0 { return written }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw Self.failure(errno, "cannot write to \(peer)")
            }
        }
    }

    /// Reads what has arrived; returns how many bytes (0 when nothing has). Throws
    /// ``RedisError/Code/connectionLost`` when the server has closed the connection.
    func readSome(into buffer: UnsafeMutableRawBufferPointer) throws(RedisError) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return count }
            if count == 0 { throw RedisError(.connectionLost, "\(peer) closed the connection") }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw Self.failure(errno, "cannot read from \(peer)")
            }
        }
    }

    /// Waits until the socket is readable (or writable, when `forWriting`), or throws
    /// ``RedisError/Code/timeout`` once `deadline` has passed.
    func wait(forWriting: Bool, until deadline: Deadline, while step: String) throws(RedisError) {
        var entry = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT | POLLIN : POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, deadline.remainingMilliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw Self.failure(errno, "cannot wait for \(peer)") }
            if ready == 0, deadline.hasPassed { throw RedisError(.timeout, "timed out \(step) \(peer)") }
        }
    }

    /// Whether the server has closed the connection, or sent bytes nobody asked for, since the last
    /// call: either way the connection cannot carry a new request.
    var isStale: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    private static func failure(_ number: Int32, _ context: String) -> RedisError {
        let code: RedisError.Code = switch number {
        case ECONNREFUSED, ENOENT: .connectionRefused
        case ECONNRESET, EPIPE, ECONNABORTED, ENOTCONN: .connectionLost
        case ETIMEDOUT: .timeout
        default: .io
        }
        return RedisError(code, "\(context): \(String(cString: strerror(number)))")
    }
}
