import HTTP2
import PushlineTestKit
import Testing

/// Answers every request with 200, echoing the request body and its header count.
private final class EchoDelegate: HTTP2ConnectionDelegate {
    func connection(_ connection: HTTP2Connection, received request: HTTP2Request) {
        connection.respond(streamID: request.streamID, HTTP2Response(
            status: 200,
            headers: [HTTP2Header("x-method", request.method), HTTP2Header("x-path", request.path),
                      HTTP2Header("x-header-count", String(request.headers.count))],
            body: request.body))
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {}
}

@Suite("HTTP/2 server", .serialized)
struct HTTP2ServerTests {
    @Test("curl --http2 gets a response over TLS with ALPN h2")
    func curlOverTLS() throws {
        let server = try OwnTLSServer { _ in EchoDelegate() }
        defer { server.stop() }
        let curl = try ExternalCommand.locate("curl", package: "curl")
        let result = try ExternalCommand.run(curl, [
            "--silent", "--show-error", "--http2", "--cacert", server.certificate.certificateFile, "--include",
            "--data-binary", #"{"aps":{}}"#, "-H", "apns-topic: com.example.app",
            "https://localhost:\(server.port)/3/device/abcd",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("HTTP/2 200"))
        #expect(result.standardOutput.contains("x-method: POST"))
        #expect(result.standardOutput.contains("x-path: /3/device/abcd"))
        #expect(result.standardOutput.hasSuffix(#"{"aps":{}}"#))
    }

    @Test("h2load completes every request over many concurrent streams")
    func h2loadConcurrency() throws {
        let server = try OwnTLSServer { _ in EchoDelegate() }
        defer { server.stop() }
        let h2load = try ExternalCommand.locate("h2load", package: "nghttp2-client")
        let result = try ExternalCommand.run(h2load, ["-n", "2000", "-c", "4", "-m", "50", "https://127.0.0.1:\(server.port)/3/device/abcd"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("requests: 2000 total, 2000 started, 2000 done, 2000 succeeded, 0 failed"), "\(result.standardOutput)")
    }
}
