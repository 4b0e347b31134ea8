import Foundation
import HTTP2
import Runtime
import TLS

/// A TLS certificate for localhost, written to temporary files.
struct TestCertificate {
    let certificateFile: String
    let keyFile: String

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-tls-\(UUID().uuidString)")
        (certificateFile, keyFile) = try SelfSignedCertificate(commonName: "localhost").write(to: directory)
    }
}

/// Pushline's own HTTP/2 server on 127.0.0.1 (a port of the system's choosing), over TLS with ALPN h2
/// and a fresh certificate for localhost, on an event loop of its own. ``stop()`` ends both.
final class OwnTLSServer: Sendable {
    let certificate: TestCertificate
    let port: UInt16
    private let loop: EventLoop
    private let server: HTTP2Server

    init(settings: HTTP2Settings = HTTP2Settings(),
         makeDelegate: @escaping @Sendable (EventLoop) -> HTTP2ConnectionDelegate) throws {
        let certificate = try TestCertificate()
        let loop = try EventLoop(name: "server")
        do {
            let tls = try TLSContext.server(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile,
                                            alpn: ["h2"])
            server = try HTTP2Server(host: "127.0.0.1", port: 0, loops: [loop], tls: tls, settings: settings,
                                     makeDelegate: makeDelegate)
        } catch {
            loop.shutdown()
            throw error
        }
        self.certificate = certificate
        self.loop = loop
        port = server.port
    }

    /// Stops accepting connections, then ends the loop. Once: the loop is gone afterwards.
    func stop() {
        server.stopAccepting()
        loop.shutdown()
    }
}
