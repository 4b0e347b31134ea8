#if canImport(Glibc)
import Glibc
#endif

/// One resolved stream-socket address, copied out of `getaddrinfo`'s list: the project's one
/// address resolution, for the transport's sockets and Redis's.
public struct SocketAddress: Sendable {
    private let storage: sockaddr_storage
    private let length: socklen_t
    /// `AF_INET` or `AF_INET6`.
    public let family: Int32

    /// Every address `host:port` resolves to for a stream socket, in the resolver's order, looked
    /// up afresh (nothing is cached here). `passive` asks for addresses to listen on.
    /// - Throws: ``SystemError`` with the resolver's text when the name does not resolve.
    public static func resolve(host: String, port: Int, passive: Bool = false) throws(SystemError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw SystemError("getaddrinfo \(host): \(String(cString: gai_strerror(status)))", errorNumber: 0)
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next?.pointee {
            var storage = sockaddr_storage()
            let length = min(Int(entry.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: entry.ai_addr, count: length)) }
            addresses.append(SocketAddress(storage: storage, length: socklen_t(length), family: entry.ai_family))
            next = entry.ai_next
        }
        return addresses
    }

    /// Lends the address to a C call (`bind`, `connect`) as a `sockaddr` pointer and its length.
    public func withSockaddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafePointer(to: storage) { pointer throws(Failure) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(Failure) in try body(address, length) }
        }
    }
}
