import PushlineTestKit
import Testing

/// Requests with the `curl` tool, an independent HTTP client.
enum Curl {
    /// What curl saw.
    struct Answer {
        let status: Int
        let contentType: String
        let body: String
    }

    /// Sends one request without a body to `path` on `host` (an IPv4 or IPv6 address) and `port`.
    static func request(_ path: String, port: UInt16, method: String = "GET", host: String = "127.0.0.1") throws -> Answer {
        let result = try run(path, port: port, method: method, host: host)
        try #require(result.status == 0, "curl failed: \(result.standardError)")
        var lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let contentType = lines.removeLast()
        let status = Int(lines.removeLast()) ?? -1
        return Answer(status: status, contentType: contentType, body: lines.joined(separator: "\n"))
    }

    /// Whether anything accepts a connection on `host` and `port` (curl's exit 7: refused).
    static func connects(port: UInt16, host: String) throws -> Bool {
        try run("/healthz", port: port, method: "GET", host: host).status != 7
    }

    private static func run(_ path: String, port: UInt16, method: String, host: String) throws -> CommandResult {
        let curl = try ExternalCommand.locate("curl", package: "curl")
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return try ExternalCommand.run(curl, ["-s", "-S", "-g", "--max-time", "5", "-X", method, "-w", "\n%{http_code}\n%{content_type}",
                                              "http://\(authority)\(path)"])
    }
}
