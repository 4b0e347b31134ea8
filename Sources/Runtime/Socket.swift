#if canImport(Glibc)
import Glibc
#endif

/// Non-blocking TCP sockets: listen, accept, connect, read and write, with results that say
/// "would block" instead of failing.
public enum Socket {
    /// What a non-blocking read or write did.
    public enum IOResult: Equatable {
        case transferred(Int)
        case wouldBlock
        /// The peer closed the connection (a read of 0 bytes), or reset it.
        case closed
    }

    /// Listens on `host:port` (port 0 picks a free one) and returns the descriptor and bound port.
    public static func listen(host: String, port: UInt16, backlog: Int32 = 1024) throws(SystemError) -> (descriptor: Int32, port: UInt16) {
        let address = try resolve(host: host, port: port, passive: true)
        let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError("socket") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockaddr { bind(descriptor, $0, $1) }
        guard bound == 0 else {
            let error = SystemError("bind \(host):\(port)")
            close(descriptor)
            throw error
        }
        guard Glibc.listen(descriptor, backlog) == 0 else {
            let error = SystemError("listen")
            close(descriptor)
            throw error
        }
        return (descriptor, try localPort(of: descriptor))
    }

    /// Accepts one pending connection as a non-blocking descriptor with TCP_NODELAY, or nil when
    /// none is pending.
    public static func accept(_ listener: Int32) -> Int32? {
        let descriptor = Glibc.accept(listener, nil, nil)
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        setNoDelay(descriptor)
        return descriptor
    }

    /// Starts a non-blocking connection to `host:port`, resolving the name afresh (APNs asks for an
    /// uncached lookup before each new connection). The descriptor becomes writable when connected;
    /// check ``pendingError(_:)`` then.
    public static func connect(host: String, port: UInt16) throws(SystemError) -> Int32 {
        let address = try resolve(host: host, port: port, passive: false)
        let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError("socket") }
        setNoDelay(descriptor)
        let result = address.withSockaddr { Glibc.connect(descriptor, $0, $1) }
        guard result == 0 || errno == EINPROGRESS else {
            let error = SystemError("connect \(host):\(port)")
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// The error of a finished non-blocking connect (0 when it succeeded).
    public static func pendingError(_ descriptor: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
        return error
    }

    /// Reads what is available into `buffer` (a caller-owned buffer, reused from read to read).
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        if count > 0 { return .transferred(count) }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wouldBlock : .closed
    }

    /// Writes as much of `bytes` as the kernel takes now.
    public static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .transferred(0) }
        let count = send(descriptor, base, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return .transferred(count) }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wouldBlock : .closed
    }

    /// Closes with a TCP reset instead of an orderly FIN (SO_LINGER 0), as a crashed peer would.
    public static func reset(_ descriptor: Int32) {
        var lingerOption = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &lingerOption, socklen_t(MemoryLayout<linger>.size))
        close(descriptor)
    }

    private static func setNoDelay(_ descriptor: Int32) {
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func localPort(of descriptor: Int32) throws(SystemError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutableBytes(of: &storage) { raw in
            getsockname(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard result == 0 else { throw SystemError("getsockname") }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
    }

    /// The first address `host:port` resolves to.
    private static func resolve(host: String, port: UInt16, passive: Bool) throws(SystemError) -> SocketAddress {
        try SocketAddress.resolve(host: host, port: Int(port), passive: passive)[0]
    }
}
