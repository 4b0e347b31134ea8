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

    /// Sends one request without a body to `path` on 127.0.0.1:`port`.
    static func request(_ path: String, port: UInt16, method: String = "GET") throws -> Answer {
        let curl = try ExternalCommand.locate("curl", package: "curl")
        let result = try ExternalCommand.run(curl, ["-s", "-S", "-X", method, "-w", "\n%{http_code}\n%{content_type}",
                                                    "http://127.0.0.1:\(port)\(path)"])
        try #require(result.status == 0, "curl failed: \(result.standardError)")
        var lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let contentType = lines.removeLast()
        let status = Int(lines.removeLast()) ?? -1
        return Answer(status: status, contentType: contentType, body: lines.joined(separator: "\n"))
    }
}
