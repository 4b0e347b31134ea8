import Foundation
import PushlineTestKit

/// The telemetry endpoints of a `pushline run` (`/metrics`, `/healthz`, `/readyz`), read with curl
/// (Debian package curl): a client that shares no code with Pushline.
struct WorkerEndpoints {
    let port: Int

    /// A port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw TestKitError("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

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
