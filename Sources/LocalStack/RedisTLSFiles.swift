import Foundation

/// A throw-away CA, a server certificate it signs (for `127.0.0.1` and `localhost`) and a client
/// certificate it signs, made with the `openssl` command-line tool in a temporary folder for a
/// `redis-server --tls-port` in tests. Removed when released.
public final class RedisTLSFiles: Sendable {
    public let directory: URL
    public var certificateAuthorityFile: String { directory.appendingPathComponent("ca.crt").path }
    public var serverCertificateFile: String { directory.appendingPathComponent("server.crt").path }
    public var serverKeyFile: String { directory.appendingPathComponent("server.key").path }
    public var clientCertificateFile: String { directory.appendingPathComponent("client.crt").path }
    public var clientKeyFile: String { directory.appendingPathComponent("client.key").path }

    /// Makes the files; throws, naming the Debian package, when `openssl` is not installed.
    public init() throws {
        let openssl = try ExternalCommand.locate("openssl", package: "openssl")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-redis-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = { (name: String) in self.directory.appendingPathComponent(name).path }
        let extensions = path("server.ext")
        try "subjectAltName = IP:127.0.0.1, DNS:localhost\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
             "-subj", "/CN=Pushline test CA", "-keyout", path("ca.key"), "-out", path("ca.crt")],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost",
             "-keyout", path("server.key"), "-out", path("server.csr")],
            ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"), "-CAcreateserial",
             "-days", "2", "-extfile", extensions, "-out", path("server.crt")],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=pushline-client",
             "-keyout", path("client.key"), "-out", path("client.csr")],
            ["x509", "-req", "-in", path("client.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"), "-CAcreateserial",
             "-days", "2", "-out", path("client.crt")],
        ]
        for step in steps {
            let result = try ExternalCommand.run(openssl, step)
            guard result.status == 0 else {
                throw LocalStackError("openssl \(step[0]) failed making test certificates: \(result.standardError)")
            }
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// `redis-server` arguments for TLS on `port` (the plain port stays open for `redis-cli`),
    /// asking clients for certificates signed by the CA when `requireClientCertificates`.
    public func serverArguments(port: Int, requireClientCertificates: Bool) -> [String] {
        ["--tls-port", String(port), "--tls-cert-file", serverCertificateFile, "--tls-key-file", serverKeyFile,
         "--tls-ca-cert-file", certificateAuthorityFile, "--tls-auth-clients", requireClientCertificates ? "yes" : "no"]
    }
}
