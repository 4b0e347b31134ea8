import Foundation
import HTTP2
import Runtime
import Synchronization
import TLS

/// An HTTP/2 server whose first connection refuses everything: at its first request it sends GOAWAY
/// with last stream id 0, so every stream the client opened on it is above the last id (never
/// processed). Later connections answer 200 to every request. It counts the requests it answered
/// per path, duplicates included.
final class GoAwayServer: @unchecked Sendable {
    // Safe to share: `server`, `loop` and the files are set in `init`; the counts are in a Mutex.
    let certificateFile: String
    private let loop: EventLoop
    private var server: HTTP2Server?
    private let state = Mutex<(connections: Int, answered: [String: Int], refusingGoAways: Int)>((0, [:], 0))
    var port: UInt16 { server?.port ?? 0 }

    /// How many requests were answered for each path.
    var answeredPerPath: [String: Int] { state.withLock { $0.answered } }
    /// GOAWAYs sent with last stream id 0.
    var refusingGoAways: Int { state.withLock { $0.refusingGoAways } }

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-goaway-\(UUID().uuidString)")
        let (certificate, key) = try SelfSignedCertificate(commonName: "localhost").write(to: directory)
        certificateFile = certificate
        loop = try EventLoop(name: "goaway-server")
        let tls = try TLSContext.server(certificateFile: certificate, privateKeyFile: key, alpn: ["h2"])
        server = try HTTP2Server(host: "127.0.0.1", port: 0, loops: [loop], tls: tls, settings: HTTP2Settings(maxConcurrentStreams: 100)) { [self] _ in
            Handler(server: self)
        }
    }

    func stop() {
        server?.stopAccepting()
        loop.shutdown()
    }

    /// One loop's connections: the first one ever is the refusing one.
    private final class Handler: HTTP2ConnectionDelegate {
        unowned let server: GoAwayServer
        /// Held, so that no later connection can take its address (and so its identity).
        private var refusing: HTTP2Connection?
        private var refused = false

        init(server: GoAwayServer) {
            self.server = server
        }

        func connectionReady(_ connection: HTTP2Connection) {
            let number = server.state.withLock { state in
                state.connections += 1
                return state.connections
            }
            if number == 1 { refusing = connection }
        }

        func connection(_ connection: HTTP2Connection, received request: HTTP2Request) {
            guard connection !== refusing else {
                if !refused {
                    refused = true
                    server.state.withLock { $0.refusingGoAways += 1 }
                    connection.goAway(errorCode: HTTP2ErrorCode.noError, debugData: [], lastStreamID: 0)
                }
                return
            }
            server.state.withLock { $0.answered[request.path, default: 0] += 1 }
            connection.respond(streamID: request.streamID, HTTP2Response(status: 200))
        }

        func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {}
    }
}
