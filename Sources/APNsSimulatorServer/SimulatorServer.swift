import APNsSimulator
import HTTP2
import Runtime
import Synchronization
import TLS

/// `apns-sim` on the network: TLS (ALPN `h2`, or prior knowledge) and HTTP/2 on a device port and
/// a channel-management port, every request decided by an ``APNsSimulator``.
///
/// Connections are spread over a few event loops; each loop has one ``SimulatorConnectionHandler``
/// that owns its connections. Used by the `apns-sim` executable and, in process, by tests.
public final class SimulatorServer: Sendable {
    public let simulator: APNsSimulator
    /// The bound device port (`/3/device`, `/4/broadcasts`).
    public let devicePort: UInt16
    /// The bound channel-management port (`/1/apps/…`).
    public let managementPort: UInt16
    private let loops: [EventLoop]
    private let servers: [HTTP2Server]
    private let handlers: HandlerRegistry
    /// Set by the first ``shutdown(drainMilliseconds:)``: a second would wait on stopped loops.
    private let isShutDown = Atomic<Bool>(false)

    /// Starts listening.
    /// - Parameters:
    ///   - host: the address to bind, `127.0.0.1` by default.
    ///   - devicePort, managementPort: 0 picks free ports.
    ///   - eventLoops: how many threads serve connections.
    public init(simulator: APNsSimulator, tls: TLSContext, host: String = "127.0.0.1", devicePort: UInt16 = 0,
                managementPort: UInt16 = 0, eventLoops: Int = 2) throws {
        self.simulator = simulator
        let loops = try (0..<max(eventLoops, 1)).map { index throws in try EventLoop(name: "apns-sim-\(index)") }
        let handlers = HandlerRegistry()
        // One SETTINGS frame before authentication: APNs allows one stream until a valid token.
        let settings = HTTP2Settings(maxConcurrentStreams: UInt32(simulator.initialMaxConcurrentStreams))
        do {
            let device = try HTTP2Server(host: host, port: devicePort, loops: loops, tls: tls, settings: settings) { loop in
                handlers.make(simulator: simulator, port: .device, loop: loop)
            }
            let management = try HTTP2Server(host: host, port: managementPort, loops: loops, tls: tls, settings: settings) { loop in
                handlers.make(simulator: simulator, port: .channelManagement, loop: loop)
            }
            self.servers = [device, management]
            self.devicePort = device.port
            self.managementPort = management.port
        } catch {
            loops.forEach { $0.shutdown() }
            throw error
        }
        self.loops = loops
        self.handlers = handlers
    }

    /// Stops accepting, sends every client GOAWAY `{"reason":"Shutdown"}`, waits up to
    /// `drainMilliseconds` for the streams in flight, then closes what is left and stops the loops.
    /// Safe to call more than once (a test that restarts APNs stops its first server, which its
    /// fixture stops again at the end).
    public func shutdown(drainMilliseconds: Int = 5000) {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        servers.forEach { $0.stopAccepting() }
        let all = handlers.all()
        let drained = Semaphore()
        for handler in all {
            handler.loop.execute { handler.goAwayAll(reason: "Shutdown", whenDrained: { drained.signal() }) }
        }
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(drainMilliseconds, 0)) * 1_000_000
        for _ in all {
            if !drained.wait(milliseconds: MonotonicClock.milliseconds(until: deadline)) { break }
        }
        for handler in all {
            handler.loop.execute { handler.closeAll() }
        }
        loops.forEach { $0.shutdown() }
    }
}

/// Every handler made so far, so shutdown can reach each loop's connections.
private final class HandlerRegistry: Sendable {
    private let handlers = Mutex<[SimulatorConnectionHandler]>([])

    func make(simulator: APNsSimulator, port: ServicePort, loop: EventLoop) -> SimulatorConnectionHandler {
        let handler = SimulatorConnectionHandler(simulator: simulator, port: port, loop: loop)
        handlers.withLock { $0.append(handler) }
        return handler
    }

    func all() -> [SimulatorConnectionHandler] {
        handlers.withLock { $0 }
    }
}
