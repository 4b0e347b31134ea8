import Foundation

/// The `apns-sim` executable as a process of its own: device pushes on a free port of 127.0.0.1
/// over the self-signed certificate for localhost that it generates, no admin API, trusting the
/// dev key. Stopped (SIGTERM, GOAWAY and drain) when released.
public final class SimulatorProcess: Sendable {
    public let devicePort: UInt16
    /// The certificate apns-sim generated; clients trust it as their CA.
    public let certificateFile: String
    private let process: ServerProcess

    /// Starts `executable` (e.g. `RepositoryPaths.builtExecutable("apns-sim")`) and waits up to 10
    /// seconds until it prints its port and certificate. One event loop by default: beside the other
    /// busy processes of `pushline bench e2e` on two cores it spends about a tenth less CPU per
    /// request than two (docs/BENCHMARKS.md, "`apns-sim` against `nghttpd`").
    public init(executable: String, eventLoops: Int = 1) throws {
        let process = try ServerProcess(executable, ["--port", "0", "--management-port", "0", "--admin-port", "-1",
                                                     "--event-loops", String(eventLoops)])
        self.process = process
        try Deadline.wait(.seconds(10), for: "apns-sim to start (its log: \(process.logFile))") {
            guard process.isRunning else { throw LocalStackError("apns-sim exited at start: \(process.log)") }
            return process.log.contains("stop with SIGINT or SIGTERM")
        }
        let lines = process.log.split(separator: "\n")
        guard let device = lines.first(where: { $0.hasPrefix("apns-sim: device API https://") }),
              let port = device.split(separator: ":").last.flatMap({ UInt16($0) }),
              let certificate = lines.first(where: { $0.hasPrefix("apns-sim: certificate ") }) else {
            throw LocalStackError("apns-sim did not print its port and certificate: \(process.log)")
        }
        devicePort = port
        certificateFile = String(certificate.dropFirst("apns-sim: certificate ".count))
    }

    deinit {
        stop()
    }

    public var processID: pid_t { process.processID }

    /// The process's largest resident set so far (`VmHWM`), in bytes.
    public var peakResidentBytes: Int? { ProcessMemory.peakResidentBytes(of: process.processID) }

    /// What apns-sim printed so far (its counts, once stopped).
    public var log: String { process.log }

    /// Stops it (SIGTERM: GOAWAY, drain, counts) and waits.
    public func stop() {
        process.stop()
    }
}
