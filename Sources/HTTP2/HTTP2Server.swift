#if canImport(Glibc)
import Glibc
#endif
import Runtime
import Synchronization
import TLS

/// Accepts TLS connections on a port and serves HTTP/2 on them, spreading connections over several
/// event loops. Each loop has one delegate, which sees only that loop's connections.
public final class HTTP2Server: Sendable {
    /// The port actually bound (useful when 0 was asked for).
    public let port: UInt16
    private let acceptor: Acceptor
    private let acceptLoop: EventLoop

    /// Starts listening.
    /// - Parameters:
    ///   - loops: the loops that own connections (round robin); the first also accepts.
    ///   - makeDelegate: called once per loop, on that loop, for the delegate of its connections.
    public init(host: String, port: UInt16, loops: [EventLoop], tls: TLSContext, settings: HTTP2Settings,
                makeDelegate: @escaping @Sendable (EventLoop) -> HTTP2ConnectionDelegate) throws {
        precondition(!loops.isEmpty, "HTTP2Server needs at least one event loop")
        let (descriptor, boundPort) = try Socket.listen(host: host, port: port)
        self.port = boundPort
        self.acceptLoop = loops[0]
        let delegates = DelegateTable(count: loops.count)
        let acceptor = Acceptor(descriptor: descriptor, loops: loops, tls: tls, settings: settings,
                                delegates: delegates, makeDelegate: makeDelegate)
        self.acceptor = acceptor
        let registered = Mutex<(any Error)?>(nil)
        let done = Semaphore()
        acceptLoop.execute {
            do {
                try acceptor.start()
            } catch {
                registered.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = registered.withLock({ $0 }) {
            Glibc.close(descriptor)
            throw error
        }
    }

    /// Stops accepting new connections; existing ones are left to their owners.
    public func stopAccepting() {
        let acceptor = acceptor
        let done = Semaphore()
        acceptLoop.execute {
            acceptor.stop()
            done.signal()
        }
        done.wait()
    }
}

/// Accepts on the first loop and hands each socket to the next loop in turn.
private final class Acceptor: FileDescriptorHandler, @unchecked Sendable {
    // Safe to share: created on one thread and then used only on the accepting loop, except the
    // immutable configuration read by other loops.
    private let descriptor: Int32
    private let loops: [EventLoop]
    private let tls: TLSContext
    private let settings: HTTP2Settings
    private let delegates: DelegateTable
    private let makeDelegate: @Sendable (EventLoop) -> HTTP2ConnectionDelegate
    private var next = 0
    private var isListening = false

    init(descriptor: Int32, loops: [EventLoop], tls: TLSContext, settings: HTTP2Settings, delegates: DelegateTable,
         makeDelegate: @escaping @Sendable (EventLoop) -> HTTP2ConnectionDelegate) {
        self.descriptor = descriptor
        self.loops = loops
        self.tls = tls
        self.settings = settings
        self.delegates = delegates
        self.makeDelegate = makeDelegate
    }

    func start() throws {
        try loops[0].register(descriptor, interest: .read, handler: self)
        isListening = true
    }

    func stop() {
        guard isListening else { return }
        isListening = false
        loops[0].unregister(descriptor)
        close(descriptor)
    }

    func readable() {
        while isListening, let accepted = Socket.accept(descriptor) {
            let index = next
            next = (next + 1) % loops.count
            let loop = loops[index]
            let tls = tls
            let settings = settings
            let delegates = delegates
            let makeDelegate = makeDelegate
            loop.execute {
                let delegate = delegates.delegate(at: index) { makeDelegate(loop) }
                do {
                    _ = try HTTP2Connection(accepted: accepted, loop: loop, tls: tls, settings: settings, delegate: delegate)
                } catch {
                    close(accepted)
                }
            }
        }
    }

    func writable() {}
}

/// One delegate per loop, created lazily on that loop and kept alive here (connections hold
/// their delegate weakly).
private final class DelegateTable: @unchecked Sendable {
    // Safe to share: slot `i` is only read and written on loop `i`.
    private var slots: [HTTP2ConnectionDelegate?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func delegate(at index: Int, orMake make: () -> HTTP2ConnectionDelegate) -> HTTP2ConnectionDelegate {
        if let existing = slots[index] { return existing }
        let made = make()
        slots[index] = made
        return made
    }
}
