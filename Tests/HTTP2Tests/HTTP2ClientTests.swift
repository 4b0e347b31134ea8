import Foundation
import HTTP2
import PushlineTestKit
import Runtime
import Synchronization
import TLS
import Testing

/// A client connection that sends `count` requests once the server's SETTINGS arrive and collects
/// the responses by stream id.
private final class RequestBurst: HTTP2ConnectionDelegate, @unchecked Sendable {
    // Safe to share: callbacks run on the loop; the test thread reads after a semaphore handoff.
    let count: Int
    let path: String
    let finished = Semaphore()
    let closed = Semaphore()
    var connection: HTTP2Connection?
    var results: [Int32: Result<HTTP2Response, HTTP2StreamFailure>] = [:]

    init(count: Int, path: String) {
        self.count = count
        self.path = path
    }

    func connectionReady(_ connection: HTTP2Connection) {
        do {
            for index in 0..<count {
                var streamID: Int32 = 0
                streamID = try connection.send(path: path, authority: "localhost", headers: [HTTP2Header("x-index", String(index))],
                                               body: Array(#"{"aps":{"alert":"\#(index)"}}"#.utf8)) { [self] result in
                    results[streamID] = result
                    if results.count == count { finished.signal() }
                }
            }
        } catch {
            Issue.record("send failed: \(error)")
            finished.signal()
        }
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {
        if results.count < count { finished.signal() }
        closed.signal()
    }
}

/// Sends `count` requests on one client connection to `port` and returns the results in stream order.
private func sendRequests(port: UInt16, count: Int, caFile: String, path: String = "/3/device/abcd") throws -> [Result<HTTP2Response, HTTP2StreamFailure>] {
    let loop = try EventLoop(name: "client")
    defer { loop.shutdown() }
    let tls = try TLSContext.client(alpn: ["h2"], verification: .certificateAuthorities(file: caFile))
    let burst = RequestBurst(count: count, path: path)
    loop.execute {
        do {
            burst.connection = try HTTP2Connection(connectingTo: "localhost", port: port, loop: loop, tls: tls, delegate: burst)
        } catch {
            Issue.record("connect failed: \(error)")
            burst.finished.signal()
        }
    }
    #expect(burst.finished.wait(milliseconds: 20_000), "responses did not all arrive")
    loop.execute { burst.connection?.close() }
    _ = burst.closed.wait(milliseconds: 5000)
    return burst.results.sorted { $0.key < $1.key }.map(\.value)
}

@Suite("HTTP/2 client", .serialized)
struct HTTP2ClientTests {
    @Test("the client talks to nghttpd, an independent HTTP/2 server, over TLS")
    func againstNghttpd() throws {
        let certificate = try TestCertificate()
        let nghttpd = try ExternalCommand.locate("nghttpd", package: "nghttp2-server")
        let directory = URL(fileURLWithPath: certificate.certificateFile).deletingLastPathComponent()
        try Data("hello from nghttpd".utf8).write(to: directory.appendingPathComponent("index.html"))
        let (probe, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        close(probe)
        let server = try ServerProcess(nghttpd, ["--htdocs=\(directory.path)", "--address=127.0.0.1", String(port),
                                                 certificate.keyFile, certificate.certificateFile])
        defer { server.stop() }
        try ListeningPort.waitUntilAccepting(port)
        let results = try sendRequests(port: port, count: 20, caFile: certificate.certificateFile, path: "/index.html")
        #expect(results.count == 20)
        for result in results {
            let response = try result.get()
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello from nghttpd")
        }
    }

    @Test("the client gets every response from Pushline's own server, each matched to its stream")
    func againstOwnServer() throws {
        let server = try OwnTLSServer(settings: HTTP2Settings(maxConcurrentStreams: 10)) { _ in EchoingServer() }
        defer { server.stop() }
        let results = try sendRequests(port: server.port, count: 300, caFile: server.certificate.certificateFile)
        #expect(results.count == 300)
        for (index, result) in results.enumerated() {
            let response = try result.get()
            #expect(response.header("x-index") == String(index))
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"aps":{"alert":"\#(index)"}}"#)
        }
    }

    @Test("a path given as a route and the rest arrives joined, each request's alone, however long the one before")
    func routedPathsArriveJoined() throws {
        let server = try OwnTLSServer { _ in PathEchoingServer() }
        defer { server.stop() }
        let loop = try EventLoop(name: "client")
        defer { loop.shutdown() }
        let clientTLS = try TLSContext.client(alpn: ["h2"], verification: .certificateAuthorities(file: server.certificate.certificateFile))
        // Longer, shorter, empty and longer again: the session joins each in a buffer it reuses.
        let rests = [String(repeating: "ab", count: 32), "cd", "", String(repeating: "ef", count: 40), "0123"]
        let requests = RoutedRequests(rests: rests)
        loop.execute {
            do {
                requests.connection = try HTTP2Connection(connectingTo: "localhost", port: server.port, loop: loop, tls: clientTLS,
                                                          delegate: requests)
            } catch {
                Issue.record("connect failed: \(error)")
                requests.finished.signal()
            }
        }
        #expect(requests.finished.wait(milliseconds: 20_000), "responses did not all arrive")
        loop.execute { requests.connection?.close() }
        #expect(rests.indices.map { requests.paths[$0] } == rests.map { "/3/device/" + $0 })
    }

    @Test("a server certificate from an unknown CA fails verification")
    func rejectsUnknownCA() throws {
        let server = try OwnTLSServer { _ in EchoingServer() }
        defer { server.stop() }
        let other = try TestCertificate()
        let results = try sendRequests(port: server.port, count: 1, caFile: other.certificateFile)
        #expect(results.isEmpty, "no request may be sent over an unverified connection")
    }
}

/// Sends one request per `rests` element on one client connection, each `:path` given as the route
/// `/3/device/` and that rest, and collects the path the server answered it saw, by request.
private final class RoutedRequests: HTTP2ConnectionDelegate, HTTP2ResponseReceiver, @unchecked Sendable {
    // Safe to share: callbacks run on the loop; the test thread reads after a semaphore handoff.
    final class Index {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    let rests: [String]
    let finished = Semaphore()
    var connection: HTTP2Connection?
    var paths: [Int: String] = [:]

    init(rests: [String]) {
        self.rests = rests
    }

    func connectionReady(_ connection: HTTP2Connection) {
        do {
            for (index, rest) in rests.enumerated() {
                try connection.send(path: HTTP2RequestPath(route: "/3/device/", rest), authority: "localhost", fields: HTTP2FieldBlock(),
                                    body: [], receiver: self, context: Index(index))
            }
        } catch {
            Issue.record("send failed: \(error)")
            finished.signal()
        }
    }

    func connection(_ connection: HTTP2Connection, endedStreamOf context: AnyObject, with result: Result<HTTP2Response, HTTP2StreamFailure>) {
        paths[(context as! Index).value] = (try? result.get())?.header("x-path") ?? "no answer"
        if paths.count == rests.count { finished.signal() }
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {
        if paths.count < rests.count { finished.signal() }
    }
}

/// Answers every request with its `:path` as `x-path`.
private final class PathEchoingServer: HTTP2ConnectionDelegate {
    func connection(_ connection: HTTP2Connection, received request: HTTP2Request) {
        connection.respond(streamID: request.streamID, HTTP2Response(status: 200, headers: [HTTP2Header("x-path", request.path)], body: []))
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {}
}

/// Echoes the x-index header and the body.
private final class EchoingServer: HTTP2ConnectionDelegate {
    func connection(_ connection: HTTP2Connection, received request: HTTP2Request) {
        let index = request.headers.first { $0.name == "x-index" }?.value ?? ""
        connection.respond(streamID: request.streamID, HTTP2Response(status: 200, headers: [HTTP2Header("x-index", index)], body: request.body))
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {}
}

