import Foundation
import PushlineTestKit

/// The telemetry endpoints of a `pushline run` (`/metrics`, `/healthz`, `/readyz`), read with curl
/// (Debian package curl): a client that shares no code with Pushline.
struct WorkerEndpoints {
    let port: Int

    /// The HTTP status of `path`, or 0 when nothing answers.
    func status(_ path: String) throws -> Int {
        let result = try curl(["--silent", "--output", "/dev/null", "--write-out", "%{http_code}", url(path)])
        return Int(result.standardOutput) ?? 0
    }

    /// The Prometheus text of `/metrics`.
    func metrics() throws -> String {
        let result = try curl(["--silent", "--fail", url("/metrics")])
        guard result.status == 0 else { throw TestKitError("GET /metrics failed: curl exit \(result.status)") }
        return result.standardOutput
    }

    /// The sum of the samples of `name` in `/metrics` whose labels contain `label` (`status="accepted"`),
    /// or of all of them.
    func sum(of name: String, labelled label: String? = nil) throws -> Double {
        try metrics().split(separator: "\n").filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
            .filter { line in label.map { line.contains($0) } ?? true }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }

    /// Waits until `path` answers `status`.
    func wait(for path: String, status expected: Int, timeout: Duration = .seconds(30)) throws {
        try Deadline.wait(timeout, for: "\(path) to answer \(expected) on port \(port)") { try status(path) == expected }
    }

    private func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    private func curl(_ arguments: [String]) throws -> CommandResult {
        try ExternalCommand.run(try ExternalCommand.locate("curl", package: "curl"), ["--max-time", "5"] + arguments)
    }
}
