import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Runtime

/// A TCP relay on a free local port to an upstream port, for a peer that stops answering: after
/// ``silenceOpenConnections()`` the connections open at that moment stay open but carry nothing
/// more either way (as behind a dead middlebox), while connections opened later relay normally.
/// The first `silentConnections` connections carry nothing from the start (a peer that accepts
/// TCP and never answers the TLS handshake).
final class SilentRelay: @unchecked Sendable {
    // Safe to share: `listener`, `port` and `upstreamPort` are set in `init`; the rest is atomic.
    let port: UInt16
    private let upstreamPort: UInt16
    private let listener: Int32
    private let accepted = Atomic<Int>(0)
    /// Connections numbered below this are silenced.
    private let silencedBelow = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// Connections accepted so far.
    var connectionCount: Int { accepted.load(ordering: .sequentiallyConsistent) }

    init(upstreamPort: UInt16, silentConnections: Int = 0) throws {
        self.upstreamPort = upstreamPort
        silencedBelow.store(silentConnections, ordering: .sequentiallyConsistent)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        ServiceThread().start(name: "silent-relay") { [self] in acceptLoop() }
    }

    /// From now on, the connections already open relay nothing; later ones are not affected.
    func silenceOpenConnections() {
        silencedBelow.store(max(accepted.load(ordering: .sequentiallyConsistent), silencedBelow.load(ordering: .sequentiallyConsistent)),
                            ordering: .sequentiallyConsistent)
    }

    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            let number = accepted.add(1, ordering: .sequentiallyConsistent).oldValue
            let pair = DescriptorPair(client, upstream)
            ServiceThread().start(name: "silent-relay-up") { [self] in pump(from: client, to: upstream, connection: number, pair: pair) }
            ServiceThread().start(name: "silent-relay-down") { [self] in pump(from: upstream, to: client, connection: number, pair: pair) }
        }
    }

    /// Copies bytes one way until either side closes; a silenced connection's bytes are dropped.
    /// `MSG_NOSIGNAL`: a side already closed ends the pump, not the test process (SIGPIPE).
    private func pump(from source: Int32, to destination: Int32, connection: Int, pair: DescriptorPair) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            if connection < silencedBelow.load(ordering: .sequentiallyConsistent) { continue }
            let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            guard written == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
        pair.pumpEnded()
    }

    /// A relayed connection's two sockets, closed when both directions have ended (not before, so
    /// neither number is reused while the other pump may still use it).
    private final class DescriptorPair: Sendable {
        let first: Int32
        let second: Int32
        private let running = Atomic<Int>(2)

        init(_ first: Int32, _ second: Int32) {
            self.first = first
            self.second = second
        }

        func pumpEnded() {
            guard running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return }
            close(first)
            close(second)
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
