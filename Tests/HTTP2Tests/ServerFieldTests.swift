import HTTP2
import PushlineTestKit
import Synchronization
import Testing

/// Keeps every request it receives (past its stream's end) and answers with packed fields: the
/// request's path and `x-tag`, and an `x-id` marked never to be indexed.
private final class KeepingDelegate: HTTP2ConnectionDelegate, @unchecked Sendable {
    // Safe to share: written on the server's loop, read by the test after curl has exited.
    let received = Mutex<[HTTP2Request]>([])

    func connection(_ connection: HTTP2Connection, received request: HTTP2Request) {
        received.withLock { $0.append(request) }
        var fields = HTTP2FieldBlock()
        fields.append("x-path", request.path)
        fields.append("x-tag", request.headers.first { $0.name == "x-tag" }?.value ?? "")
        fields.append("x-id", "id-\(request.streamID)", indexing: .never)
        connection.respond(streamID: request.streamID, status: 201, fields: fields, body: request.body)
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {}
}

@Suite("HTTP/2 server: request and response fields as bytes", .serialized)
struct ServerFieldTests {
    /// Runs `body` with a server whose connections go to one ``KeepingDelegate``, and a way to run
    /// `curl --http2` against it (trusting its certificate) with more arguments.
    private func withServer(_ body: (UInt16, KeepingDelegate, _ curl: ([String]) throws -> CommandResult) throws -> Void) throws {
        let delegate = KeepingDelegate()
        let server = try OwnTLSServer { _ in delegate }
        defer { server.stop() }
        let curl = try ExternalCommand.locate("curl", package: "curl")
        try body(server.port, delegate) { arguments in
            try ExternalCommand.run(curl, ["--silent", "--show-error", "--http2", "--cacert", server.certificate.certificateFile] + arguments)
        }
    }

    @Test("a request's fields are the bytes received, pseudo-headers first; method, path, authority and headers read them")
    func requestFields() throws {
        try withServer { port, delegate, curl in
            let result = try curl([
                "--include", "--data-binary", "payload", "-H", "x-tag: first", "-H", "x-tag: second", "-H", "x-empty;",
                "https://localhost:\(port)/3/device/abcd?x=1",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let request = try #require(delegate.received.withLock { $0.first })
            #expect(request.method == "POST")
            #expect(request.path == "/3/device/abcd?x=1")
            #expect(request.authority == "localhost:\(port)")
            #expect(request.body == Array("payload".utf8))
            let names = request.fields.withUnsafeFields { fields in fields.map { String(decoding: $0.name, as: UTF8.self) } }
            #expect(Array(names.prefix(4)).sorted() == [":authority", ":method", ":path", ":scheme"])
            #expect(names.dropFirst(4).allSatisfy { !$0.hasPrefix(":") })
            let headers = request.headers
            #expect(headers.allSatisfy { !$0.name.hasPrefix(":") })
            #expect(headers.filter { $0.name == "x-tag" }.map(\.value) == ["first", "second"])
            #expect(headers.contains(HTTP2Header("x-empty", "")))
        }
    }

    @Test("requests kept past their streams keep their own fields while the server reuses its storage")
    func keptRequests() throws {
        try withServer { port, delegate, curl in
            let paths = (0..<20).map { "/3/device/\(String(repeating: "ab", count: $0 + 1))" }
            // One connection, one request after another: each stream's storage serves the next.
            let result = try curl(["--data-binary", "body", "-H", "x-tag: kept", "--output", "/dev/null"] + paths.map { "https://localhost:\(port)\($0)" })
            #expect(result.status == 0, "\(result.standardError)")
            let received = delegate.received.withLock { $0 }
            #expect(received.map(\.path) == paths)
            #expect(received.allSatisfy { $0.headers.contains(HTTP2Header("x-tag", "kept")) && $0.body == Array("body".utf8) })
        }
    }

    @Test("a response of packed fields arrives with each field, never-indexed ones included")
    func packedResponse() throws {
        try withServer { port, _, curl in
            let result = try curl([
                "--include", "--data-binary", "echo", "-H", "x-tag: t1", "https://localhost:\(port)/a", "https://localhost:\(port)/b",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let output = result.standardOutput
            #expect(output.components(separatedBy: "HTTP/2 201").count == 3, "\(output)")
            #expect(output.contains("x-path: /a") && output.contains("x-path: /b"))
            #expect(output.contains("x-tag: t1"))
            #expect(output.contains("x-id: id-1") && output.contains("x-id: id-3"), "\(output)")
            #expect(output.contains("echo"))
        }
    }
}
