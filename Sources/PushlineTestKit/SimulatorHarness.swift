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

    public init(configuration: SimulatorConfiguration = SimulatorConfiguration()) throws {
        let certificate = try SelfSignedCertificate(commonName: "localhost")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificateFile = directory.appendingPathComponent("certificate.pem").path
        let keyFile = directory.appendingPathComponent("private-key.pem").path
        try certificate.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try certificate.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let tls = try TLSContext.server(certificateFile: certificateFile, privateKeyFile: keyFile, alpn: ["h2"],
                                        requestClientCertificate: true)
        server = try SimulatorServer(simulator: APNsSimulator(configuration: configuration), tls: tls, eventLoops: 1)
    }

    /// GOAWAY to clients, drain, stop.
    public func stop() {
        server.shutdown(drainMilliseconds: 2000)
    }
}
