import APNsSimulator
import HTTP2
import Runtime

/// The connections of one event loop on one simulator port: turns each HTTP/2 request into a
/// ``SimulatorRequest``, carries out the simulator's action (answer now or after the injected
/// latency, never, or reset the connection) and its connection effects (SETTINGS, GOAWAY).
final class SimulatorConnectionHandler: HTTP2ConnectionDelegate, @unchecked Sendable {
    // Safe to share: created on its loop and, apart from the immutable `loop`, `simulator` and
    // `port`, only used there (callbacks, and work sent with `loop.execute`).
    let loop: EventLoop
    private let simulator: APNsSimulator
    private let port: ServicePort
    private var connections: [ObjectIdentifier: HTTP2Connection] = [:]
    private var whenDrained: (() -> Void)?

    init(simulator: APNsSimulator, port: ServicePort, loop: EventLoop) {
        self.simulator = simulator
        self.port = port
        self.loop = loop
    }

    func connectionReady(_ connection: HTTP2Connection) {
        let uids = connection.peerCertificateSubjectUIDs
        let model = simulator.makeConnection(port: port, clientCertificateTopics: uids.isEmpty ? nil : uids)
        connection.attachment = model
        connections[ObjectIdentifier(connection)] = connection
        if model.maxConcurrentStreams != simulator.initialMaxConcurrentStreams {
            connection.setMaxConcurrentStreams(model.maxConcurrentStreams)
        }
    }

    func connection(_ connection: HTTP2Connection, received request: HTTP2Request) {
        guard let model = connection.attachment as? SimulatedConnection else { return }
        // The fields go on as the bytes received: no `String` is made of a header the simulator skips.
        let simulated = SimulatorRequest(fields: request.fields, body: request.body)
        switch simulator.handle(simulated, on: model) {
        case .respond(let response, let delay):
            // The packed fields go to nghttp2 as they are, with the simulator's indexing.
            if delay > 0 {
                loop.schedule(afterMilliseconds: delay) { [weak connection] in
                    connection?.respond(streamID: request.streamID, status: response.status, fields: response.fields, body: response.body)
                }
            } else {
                connection.respond(streamID: request.streamID, status: response.status, fields: response.fields, body: response.body)
            }
        case .neverRespond:
            break
        case .resetConnection:
            connection.close(reset: true)
            return
        }
        for effect in model.takeEffects() {
            switch effect {
            case .setMaxConcurrentStreams(let limit):
                connection.setMaxConcurrentStreams(limit)
            case .goAway(let reason, let errorCode):
                connection.goAway(errorCode: errorCode, debugData: ConnectionEffect.goAwayDebugData(reason: reason))
            }
        }
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {
        connections[ObjectIdentifier(connection)] = nil
        if let model = connection.attachment as? SimulatedConnection { simulator.connectionClosed(model) }
        if connections.isEmpty, let whenDrained {
            self.whenDrained = nil
            whenDrained()
        }
    }

    /// GOAWAY to every connection; `whenDrained` runs once all of them have closed.
    func goAwayAll(reason: String, whenDrained: @escaping () -> Void) {
        guard !connections.isEmpty else {
            whenDrained()
            return
        }
        self.whenDrained = whenDrained
        for connection in connections.values {
            connection.goAway(errorCode: ConnectionEffect.noError, debugData: ConnectionEffect.goAwayDebugData(reason: reason))
        }
    }

    func closeAll() {
        for connection in Array(connections.values) { connection.close() }
    }
}
