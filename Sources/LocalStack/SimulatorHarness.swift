import APNsSimulator
import APNsSimulatorServer
import Foundation
import TLS

/// An `apns-sim` served in process on free ports, with a self-signed certificate for localhost
/// whose file clients use as their CA.
public final class SimulatorHarness: @unchecked Sendable {
    // Safe to share: every stored property is set in `init` and never changed.
    public let server: SimulatorServer
    public let certificateFile: String
    public let privateKeyFile: String
    public var simulator: APNsSimulator { server.simulator }
    public var devicePort: UInt16 { server.devicePort }
    public var managementPort: UInt16 { server.managementPort }

    /// - Parameters:
    ///   - now: the simulator's clock, UNIX milliseconds (tests move it by hand).
    ///   - replacing: a stopped harness whose port and certificate this one takes over, as a
    ///     restarted APNs would look to a client that keeps reconnecting.
    public init(configuration: SimulatorConfiguration = SimulatorConfiguration(),
                now: @escaping @Sendable () -> Int64 = APNsSimulator.systemNow, replacing previous: SimulatorHarness? = nil) throws {
        if let previous {
            certificateFile = previous.certificateFile
            privateKeyFile = previous.privateKeyFile
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-sim-\(UUID().uuidString)")
            (certificateFile, privateKeyFile) = try SelfSignedCertificate(commonName: "localhost").write(to: directory)
        }
        let keyFile = privateKeyFile
        let devicePort = previous?.devicePort ?? 0
        let tls = try TLSContext.server(certificateFile: certificateFile, privateKeyFile: keyFile, alpn: ["h2"],
                                        requestClientCertificate: true)
        server = try SimulatorServer(simulator: APNsSimulator(configuration: configuration, now: now), tls: tls,
                                     devicePort: devicePort, eventLoops: 1)
    }

    /// GOAWAY to clients, drain, stop.
    public func stop() {
        server.shutdown(drainMilliseconds: 2000)
    }
}
