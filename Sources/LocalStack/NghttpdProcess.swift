import Foundation
import TLS

/// `nghttpd` (Debian package nghttp2-server), nghttp2's own HTTP/2 server, as an APNs stand-in for
/// benchmarks: TLS on a free port of 127.0.0.1 with a self-signed certificate for localhost, and an
/// empty file under `htdocs/3/device/` for each device token it is to accept, so that
/// `POST /3/device/<token>` gets `200` (any other token: `404`). It checks nothing an APNs server
/// checks and keeps nothing: the cheapest server an APNs client can be measured against.
/// Stopped when released.
public final class NghttpdProcess: Sendable {
    public let devicePort: UInt16
    /// The certificate it serves; clients trust it as their CA.
    public let certificateFile: String
    private let directory: URL
    private let process: ServerProcess

    /// Starts nghttpd accepting pushes to `deviceTokens` (hex) and waits up to 10 seconds until it
    /// accepts connections.
    public init(deviceTokens: some Sequence<String>) throws {
        let executable = try ExternalCommand.locate("nghttpd", package: "nghttp2-server")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-nghttpd-\(UUID().uuidString.prefix(8))")
        let devices = directory.appendingPathComponent("htdocs/3/device")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        for token in deviceTokens {
            guard FileManager.default.createFile(atPath: devices.appendingPathComponent(token).path, contents: nil) else {
                throw LocalStackError("cannot create nghttpd's file for device token \(token) in \(devices.path)")
            }
        }
        let (certificateFile, privateKeyFile) = try SelfSignedCertificate(commonName: "localhost").write(to: directory)
        self.certificateFile = certificateFile
        let port = try FreePort.next()
        let process = try ServerProcess(executable, ["--address=127.0.0.1", "--htdocs=\(directory.appendingPathComponent("htdocs").path)",
                                                     String(port), privateKeyFile, certificateFile])
        self.process = process
        devicePort = UInt16(port)
        try ListeningPort.waitUntilAccepting(UInt16(port), timeout: .seconds(10))
        guard process.isRunning else { throw LocalStackError("nghttpd exited at start: \(process.log)") }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public var processID: pid_t { process.processID }

    /// The process's largest resident set so far (`VmHWM`), in bytes.
    public var peakResidentBytes: Int? { ProcessMemory.peakResidentBytes(of: process.processID) }

    /// Stops it and waits.
    public func stop() {
        process.stop()
    }
}
