import EmbeddedHTTP
import Foundation
import PushlineTestKit
import Synchronization
import Testing

@Suite("Embedded HTTP server")
struct EmbeddedHTTPServerTests {
    /// What curl saw: the status, the content type and the body.
    struct CurlResult {
        let status: Int
        let contentType: String
        let body: String
    }

    /// Sends one request with the `curl` tool, an independent HTTP client.
    private func curl(_ method: String, port: UInt16, _ pathAndQuery: String, body: Data? = nil) throws -> CurlResult {
        let curl = try ExternalCommand.locate("curl", package: "curl")
        var arguments = ["-s", "-S", "-X", method, "-w", "\n%{http_code} %{content_type}"]
        if body != nil { arguments += ["-H", "Content-Type: application/octet-stream", "--data-binary", "@-"] }
        arguments.append("http://127.0.0.1:\(port)\(pathAndQuery)")
        let result = try ExternalCommand.run(curl, arguments, standardInput: body)
        try #require(result.status == 0, "curl failed: \(result.standardError)")
        let output = result.standardOutput
        let split = try #require(output.range(of: "\n", options: .backwards))
        let trailer = output[split.upperBound...].split(separator: " ", maxSplits: 1).map(String.init)
        return CurlResult(status: Int(trailer[0]) ?? -1, contentType: trailer.count > 1 ? trailer[1] : "",
                          body: String(output[..<split.lowerBound]))
    }

    @Test("a request reaches the handler and its answer reaches the client")
    func answersWithHandlerResponse() throws {
        let server = try EmbeddedHTTPServer { request in
            .json(Array("{\"method\":\"\(request.method)\",\"path\":\"\(request.path)\"}".utf8), status: 202)
        }
        defer { server.stop() }
        let result = try curl("GET", port: server.port, "/inbox")
        #expect(result.status == 202)
        #expect(result.contentType == "application/json")
        #expect(result.body == "{\"method\":\"GET\",\"path\":\"/inbox\"}")
    }

    @Test("port 0 picks a free port and exposes it")
    func portZeroPicksFreePort() throws {
        let server = try EmbeddedHTTPServer { _ in .text("ok") }
        defer { server.stop() }
        #expect(server.port != 0)
    }

    @Test("query arguments arrive decoded and apart from the path")
    func queryArgumentsAreDecoded() throws {
        let seen = Mutex<EmbeddedHTTPRequest?>(nil)
        let server = try EmbeddedHTTPServer { request in
            seen.withLock { $0 = request }
            return .text("ok")
        }
        defer { server.stop() }
        _ = try curl("GET", port: server.port, "/inbox?token=ab%20cd&flag")
        let request = try #require(seen.withLock { $0 })
        #expect(request.path == "/inbox")
        #expect(request.query == ["token": "ab cd", "flag": ""])
    }

    @Test("a body sent in many chunks arrives whole")
    func largeBodyArrivesWhole() throws {
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let received = Mutex<[UInt8]>([])
        let server = try EmbeddedHTTPServer { request in
            received.withLock { $0 = request.body }
            return .text("\(request.body.count)")
        }
        defer { server.stop() }
        let result = try curl("POST", port: server.port, "/devices", body: body)
        #expect(result.body == "200000")
        #expect(received.withLock { $0 } == Array(body))
    }

    @Test("a body over the limit is answered 413 without calling the handler")
    func bodyOverLimitIsRejected() throws {
        let calls = Atomic<Int>(0)
        let server = try EmbeddedHTTPServer(maximumBodyBytes: 10) { _ in
            calls.add(1, ordering: .relaxed)
            return .text("ok")
        }
        defer { server.stop() }
        let result = try curl("POST", port: server.port, "/faults", body: Data(repeating: 0x41, count: 11))
        #expect(result.status == 413)
        #expect(calls.load(ordering: .relaxed) == 0)
    }

    @Test("after stop the port refuses connections")
    func stopClosesTheListener() throws {
        let server = try EmbeddedHTTPServer { _ in .text("ok") }
        let port = server.port
        server.stop()
        server.stop()
        let curl = try ExternalCommand.locate("curl", package: "curl")
        let result = try ExternalCommand.run(curl, ["-s", "http://127.0.0.1:\(port)/"])
        #expect(result.status == 7)  // curl: failed to connect
    }

    @Test("a port already in use is an error naming the port")
    func occupiedPortIsAnError() throws {
        let first = try EmbeddedHTTPServer { _ in .text("ok") }
        defer { first.stop() }
        let error = #expect(throws: EmbeddedHTTPError.self) {
            try EmbeddedHTTPServer(port: first.port) { _ in .text("second") }
        }
        #expect(error?.port == first.port)
    }
}
