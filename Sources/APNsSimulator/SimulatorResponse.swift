import APNsCore

/// The answer to one request: the `:status`, the headers and the body (empty for a 200 push).
public struct SimulatorResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    /// A response with these parts.
    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A rejection as APNs sends it: `content-type: application/json`, the id header, and
    /// `{"reason":…}` plus `"timestamp"` (milliseconds) when there is one (410 only).
    static func rejection(_ rejection: Rejection, idHeader: HTTPHeader) -> SimulatorResponse {
        var object: JSONObject = ["reason": .string(rejection.reason.rawValue)]
        if let timestamp = rejection.timestamp { object.members.append(.init("timestamp", .integer(timestamp))) }
        var body: [UInt8] = []
        JSONWriter.appendValue(.object(object), to: &body)
        return SimulatorResponse(
            status: status(of: rejection),
            headers: [HTTPHeader("content-type", "application/json"), idHeader],
            body: body
        )
    }

    /// The `:status` of a rejection.
    static func status(of rejection: Rejection) -> Int {
        rejection.reason.status ?? 400
    }

    /// A JSON body with the given status and headers.
    static func json(_ value: JSONValue, status: Int, headers: [HTTPHeader]) -> SimulatorResponse {
        var body: [UInt8] = []
        JSONWriter.appendValue(value, to: &body)
        return SimulatorResponse(status: status, headers: [HTTPHeader("content-type", "application/json")] + headers, body: body)
    }
}
