#if canImport(Glibc)
import Glibc
#endif
internal import CMicroHTTPD
internal import CPushlineShims
import Synchronization

/// A small plain-HTTP/1.1 server for control planes (the simulator's admin API, metrics): one
/// libmicrohttpd daemon with its own polling thread, calling a handler with each complete request.
///
/// The handler runs on libmicrohttpd's thread, one request at a time; it must not block for long.
public final class EmbeddedHTTPServer: Sendable {
    /// The port the server listens on: the one asked for, or the free port picked for 0.
    public let port: UInt16
    private let daemon: Mutex<DaemonHandle?>
    private let context: Unmanaged<ServerContext>

    /// The address of every IPv4 interface.
    public static let anyIPv4Address = "0.0.0.0"
    /// The IPv4 loopback address: reachable from this host only.
    public static let loopbackAddress = "127.0.0.1"

    /// Starts listening on `address` and `port` (0 = pick a free port, see ``port``).
    ///
    /// - Parameters:
    ///   - address: the IP address to bind, IPv4 or IPv6 (`127.0.0.1`, the default: control planes
    ///     are not for the network; `0.0.0.0` every IPv4 address; `::1`; `::` every IPv6 and IPv4
    ///     address). Not a host name: nothing is resolved.
    ///   - maximumBodyBytes: a larger request body is answered 413 without calling the handler.
    ///   - handler: answers one request.
    public init(address: String = loopbackAddress, port: UInt16 = 0, maximumBodyBytes: Int = 1 << 20,
                handler: @escaping @Sendable (EmbeddedHTTPRequest) -> EmbeddedHTTPResponse) throws(EmbeddedHTTPError) {
        let context = Unmanaged.passRetained(ServerContext(maximumBodyBytes: maximumBodyBytes, handler: handler))
        let opaque = context.toOpaque()
        guard let daemon = pushline_mhd_start(address, port, accessHandler, opaque, requestCompleted, nil)
        else {
            let error = EmbeddedHTTPError(address: address, port: port, errorNumber: errno)
            context.release()
            throw error
        }
        self.port = pushline_mhd_bound_port(daemon)
        self.daemon = Mutex(DaemonHandle(pointer: daemon))
        self.context = context
    }

    /// Closes the listening socket and every connection, and waits for the server thread to end.
    /// Safe to call more than once.
    public func stop() {
        guard let handle = daemon.withLock({ $0.take() }) else { return }
        MHD_stop_daemon(handle.pointer)
        context.release()
    }

    deinit {
        stop()
    }
}

/// The daemon pointer, moved out of the lock exactly once by `stop()`.
private struct DaemonHandle: ~Copyable {
    let pointer: OpaquePointer
}
