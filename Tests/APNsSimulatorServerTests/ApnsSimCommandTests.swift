import Foundation
import PushlineTestKit
import Testing

@Suite("apns-sim executable", .serialized)
struct ApnsSimCommandTests {
    @Test("--help documents the flags")
    func help() throws {
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable("apns-sim"), ["--help"])
        #expect(result.status == 0)
        for flag in ["--port", "--management-port", "--admin-port", "--certificate", "--provider-key", "--team-id", "--devices",
                     "--max-concurrent-streams", "--collapse-streams", "--inbox", "--fault", "latency_ms"] {
            #expect(result.standardOutput.contains(flag), "help lacks \(flag)")
        }
    }

    @Test("a bad flag value names the flag and exits 2")
    func badFlag() throws {
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable("apns-sim"), ["--environment", "staging"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--environment must be sandbox or production, got \"staging\""))
    }

    @Test("it serves, records what a device received, and on SIGTERM prints its counts and exits 0")
    func serveAndStop() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-apns-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let inbox = directory.appendingPathComponent("inbox.jsonl").path
        let process = try ServerProcess(RepositoryPaths.builtExecutable("apns-sim"),
                                        ["--port", "0", "--management-port", "0", "--admin-port", "0", "--inbox", inbox])
        defer { process.stop() }
        var lines: [String] = []
        for _ in 0..<500 where !process.log.contains("stop with SIGINT or SIGTERM") { usleepMilliseconds(10) }
        lines = process.log.split(separator: "\n").map(String.init)
        let device = try #require(lines.first { $0.hasPrefix("apns-sim: device API https://127.0.0.1:") })
        let port = String(device.split(separator: ":").last!)
        let certificate = try #require(lines.first { $0.hasPrefix("apns-sim: certificate ") }).dropFirst("apns-sim: certificate ".count)
        let curl = try ExternalCommand.locate("curl", package: "curl")
        let token = String(repeating: "ab", count: 32)
        let sent = try ExternalCommand.run(curl, [
            "--silent", "--http2", "--cacert", String(certificate), "--write-out", "%{http_code}",
            "-H", "authorization: bearer \(try devToken())", "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
            "--data-binary", #"{"aps":{"alert":"hello"}}"#, "https://localhost:\(port)/3/device/\(token)",
        ])
        #expect(sent.standardOutput == "200")
        process.send(signal: SIGTERM)
        #expect(process.waitForExit() == 0)
        #expect(process.log.contains("1 requests on 1 connections") || process.log.contains("200: 1"), "\(process.log)")
        let recorded = try String(contentsOfFile: inbox, encoding: .utf8)
        #expect(recorded.contains(token))
        #expect(recorded.contains("hello"))
    }
}
