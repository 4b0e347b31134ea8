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
    public var simulator: APNsSimulator { server.simulator }
    public var devicePort: UInt16 { server.devicePort }
    public var managementPort: UInt16 { server.managementPort }

    /// - Parameter now: the simulator's clock, UNIX milliseconds (tests move it by hand).
    public init(configuration: SimulatorConfiguration = SimulatorConfiguration(),
                now: @escaping @Sendable () -> Int64 = APNsSimulator.systemNow) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-sim-\(UUID().uuidString)")
        let files = try SelfSignedCertificate(commonName: "localhost").write(to: directory)
        certificateFile = files.certificateFile
        let keyFile = files.privateKeyFile
        let tls = try TLSContext.server(certificateFile: certificateFile, privateKeyFile: keyFile, alpn: ["h2"],
                                        requestClientCertificate: true)
        server = try SimulatorServer(simulator: APNsSimulator(configuration: configuration, now: now), tls: tls, eventLoops: 1)
    }

    /// GOAWAY to clients, drain, stop.
    public func stop() {
        server.shutdown(drainMilliseconds: 2000)
    }
}
