import Foundation

/// The `apns-sim` executable as a process of its own: device pushes on a free port of 127.0.0.1
/// over the self-signed certificate for localhost that it generates, no admin API, trusting the
/// dev key. Stopped (SIGTERM, GOAWAY and drain) when released.
public final class SimulatorProcess: Sendable {
    public let devicePort: UInt16
    /// The certificate apns-sim generated; clients trust it as their CA.
    public let certificateFile: String
    /// The plain-HTTP admin API's port (docs/apns-sim.md), when started with one.
    public let adminPort: UInt16?
    /// Where every accepted notification is appended as a JSON line, when started with one.
    public let inboxFile: String?
    private let process: ServerProcess

    /// Starts `executable` (e.g. `RepositoryPaths.builtExecutable("apns-sim")`) and waits up to 10
    /// seconds until it prints its port and certificate. One event loop by default: beside the other
    /// busy processes of `pushline-dev bench e2e` on two cores it spends about a tenth less CPU per
    /// request than two (docs/BENCHMARKS.md, "`apns-sim` against `nghttpd`").
    /// With `adminAPI`, it also serves its admin API on a free port of loopback (``setFaults(_:)``);
    /// with `inboxFile`, it logs every accepted notification there (``inboxCounts()``).
    public init(executable: String, eventLoops: Int = 1, adminAPI: Bool = false, inboxFile: String? = nil) throws {
        let process = try ServerProcess(executable, ["--port", "0", "--management-port", "0", "--admin-port", adminAPI ? "0" : "-1",
                                                     "--event-loops", String(eventLoops)] + (inboxFile.map { ["--inbox", $0] } ?? []))
        self.process = process
        self.inboxFile = inboxFile
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
        let adminPrefix = "apns-sim: admin API http://127.0.0.1:"
        adminPort = lines.first { $0.hasPrefix(adminPrefix) }.flatMap { UInt16($0.dropFirst(adminPrefix.count)) }
        if adminAPI, adminPort == nil { throw LocalStackError("apns-sim did not print its admin port: \(process.log)") }
    }

    deinit {
        stop()
    }

    public var processID: pid_t { process.processID }

    /// The process's largest resident set so far (`VmHWM`), in bytes.
    public var peakResidentBytes: Int? { ProcessMemory.peakResidentBytes(of: process.processID) }

    /// What apns-sim printed so far (its counts, once stopped).
    public var log: String { process.log }

    /// Changes the faults in force (`POST /faults` with a JSON object of fault settings, through
    /// `curl`): only the named settings change. Throws when the simulator refuses them.
    public func setFaults(_ json: String) throws {
        guard let adminPort else { throw LocalStackError("apns-sim was started without its admin API") }
        let curl = try ExternalCommand.locate("curl", package: "curl")
        let result = try ExternalCommand.run(curl, ["--silent", "--show-error", "--fail-with-body", "-X", "POST", "--data-binary", json,
                                                    "http://127.0.0.1:\(adminPort)/faults"])
        guard result.status == 0 else { throw LocalStackError("POST /faults \(json): \(result.standardOutput)\(result.standardError)") }
    }

    /// How many notifications each device token received so far, from the inbox file (every
    /// acceptance, duplicates included).
    public func inboxCounts() throws -> [String: Int] {
        guard let inboxFile else { throw LocalStackError("apns-sim was started without an inbox file") }
        let marker = Array(#""token":""#.utf8)
        var counts: [String: Int] = [:]
        let bytes = FileManager.default.contents(atPath: inboxFile).map(Array.init) ?? []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let start = line.indices.first(where: { line[$0...].starts(with: marker) }) else { continue }
            let token = line[(start + marker.count)...].prefix { $0 != UInt8(ascii: "\"") }
            counts[String(decoding: token, as: UTF8.self), default: 0] += 1
        }
        return counts
    }

    /// Stops it (SIGTERM: GOAWAY, drain, counts) and waits.
    public func stop() {
        process.stop()
    }
}
