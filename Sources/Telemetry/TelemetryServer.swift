import EmbeddedHTTP

/// Serves what an SRE and an orchestrator ask a running Pushline process, over plain HTTP on
/// ``EmbeddedHTTPServer`` (libmicrohttpd):
///
/// - `GET /metrics`: every metric of the registry in the Prometheus text format 0.0.4;
/// - `GET /healthz`: 200 while the process runs (liveness);
/// - `GET /readyz`: 200 when the readiness closure says the process can take work, else 503.
///
/// Other paths answer 404, other methods 405. Handlers run on the server's own thread.
public final class TelemetryServer: Sendable {
    private let server: EmbeddedHTTPServer

    /// The port the server listens on: the one asked for, or the free port picked for 0.
    public var port: UInt16 { server.port }

    /// Starts serving `registry` on `address` and `port` (0 = a free port, see ``port``).
    ///
    /// - Parameters:
    ///   - address: the IP address to bind (IPv4 or IPv6); 127.0.0.1 by default, `0.0.0.0` or `::`
    ///     for a Prometheus server or an orchestrator on another host (``EmbeddedHTTPServer``).
    ///   - isReady: asked on every `/readyz`; must be quick and must not block.
    public init(registry: MetricsRegistry, address: String = EmbeddedHTTPServer.loopbackAddress, port: UInt16 = 0,
                isReady: @escaping @Sendable () -> Bool) throws(EmbeddedHTTPError) {
        server = try EmbeddedHTTPServer(address: address, port: port, maximumBodyBytes: 0) { request in
            Self.respond(to: request, registry: registry, isReady: isReady)
        }
    }

    /// Stops listening and waits for the server thread to end. Safe to call more than once.
    public func stop() {
        server.stop()
    }

    private static func respond(to request: EmbeddedHTTPRequest, registry: MetricsRegistry,
                                isReady: @Sendable () -> Bool) -> EmbeddedHTTPResponse {
        guard ["/metrics", "/healthz", "/readyz"].contains(request.path) else { return .text("not found\n", status: 404) }
        guard request.method == "GET" else { return .text("method not allowed\n", status: 405) }
        switch request.path {
        case "/metrics":
            var body: [UInt8] = []
            registry.emit(into: &body)
            return EmbeddedHTTPResponse(status: 200, contentType: MetricsRegistry.expositionContentType, body: body)
        case "/healthz":
            return .text("ok\n")
        default:
            return isReady() ? .text("ready\n") : .text("not ready\n", status: 503)
        }
    }
}
