import APNsCore
import EmbeddedHTTP

/// The simulator's plain-HTTP admin API, for tests and people:
///
/// - `GET /inbox` (optionally `?token=<hex>`) → `{"notifications": [...]}`, oldest first;
///   `DELETE /inbox` empties it;
/// - `GET /stats` → counts by status and reason;
/// - `POST /devices` with the device-registry document → adds or replaces entries;
/// - `GET /faults`, `POST /faults` with some fault settings → the faults now in force.
///
/// Errors are JSON `{"error": "..."}` with 400, 404 or 405.
public struct SimulatorAdminAPI: Sendable {
    public let simulator: APNsSimulator

    /// The API of `simulator`; call ``start(port:loopbackOnly:)`` to serve it.
    public init(simulator: APNsSimulator) {
        self.simulator = simulator
    }

    /// Serves the API on `port` (0 = a free port, see ``EmbeddedHTTPServer/port``).
    public func start(port: UInt16 = 0, loopbackOnly: Bool = true) throws(EmbeddedHTTPError) -> EmbeddedHTTPServer {
        try EmbeddedHTTPServer(address: loopbackOnly ? EmbeddedHTTPServer.loopbackAddress : EmbeddedHTTPServer.anyIPv4Address,
                               port: port) { request in handle(request) }
    }

    /// Answers one admin request.
    public func handle(_ request: EmbeddedHTTPRequest) -> EmbeddedHTTPResponse {
        switch (request.path, request.method) {
        case ("/inbox", "GET"): inbox(query: request.query)
        case ("/inbox", "DELETE"): clearInbox()
        case ("/stats", "GET"): Self.json(simulator.stats().json)
        case ("/devices", "POST"): registerDevices(request.body)
        case ("/faults", "GET"): Self.json(simulator.faults.json)
        case ("/faults", "POST"): changeFaults(request.body)
        case ("/inbox", _), ("/stats", _), ("/devices", _), ("/faults", _):
            Self.error("method \(request.method) not allowed on \(request.path)", status: 405)
        default: Self.error("no such resource: \(request.path)", status: 404)
        }
    }

    private func inbox(query: [String: String]) -> EmbeddedHTTPResponse {
        var token: DeviceToken?
        if let hex = query["token"] {
            do {
                token = try DeviceToken(hex)
            } catch {
                return Self.error("token: \(error.detail)", status: 400)
            }
        }
        let notifications = simulator.inbox(token: token).map { JSONValue.object($0.json) }
        return Self.json(.object(["notifications": .array(notifications)]))
    }

    private func clearInbox() -> EmbeddedHTTPResponse {
        simulator.clearInbox()
        return Self.json(.object(["notifications": .array([])]))
    }

    private func registerDevices(_ body: [UInt8]) -> EmbeddedHTTPResponse {
        do {
            let entries = try DeviceRegistry.entries(json: body, source: "POST /devices")
            simulator.registerDevices(entries)
            return Self.json(.object(["registered": .integer(Int64(entries.count))]))
        } catch {
            return Self.error(error.description, status: 400)
        }
    }

    private func changeFaults(_ body: [UInt8]) -> EmbeddedHTTPResponse {
        do {
            let faults = try simulator.updateFaults { faults throws(SimulatorConfigurationError) in
                try faults.applying(json: body, source: "POST /faults")
            }
            return Self.json(faults.json)
        } catch {
            return Self.error(error.description, status: 400)
        }
    }

    private static func json(_ value: JSONValue, status: Int = 200) -> EmbeddedHTTPResponse {
        var body: [UInt8] = []
        JSONWriter.appendValue(value, to: &body)
        body.append(0x0A)
        return .json(body, status: status)
    }

    private static func error(_ message: String, status: Int) -> EmbeddedHTTPResponse {
        json(.object(["error": .string(message)]), status: status)
    }
}
