import APNsCore
import HTTPFields

/// The answer to one request: the `:status`, the headers and the body (empty for a 200 push).
///
/// The headers are kept packed as the transport sends them (``fields``), each marked with how the
/// HPACK encoder may remember it: the ids unique to one answer are never indexed, so they neither
/// cost both ends a header-table entry per response nor push the repeated fields out of the tables.
public struct SimulatorResponse: Sendable, Equatable {
    public var status: Int
    /// The headers, packed, with their indexing.
    public private(set) var fields: HTTPFieldBlock
    public var body: [UInt8]

    /// A response with these parts.
    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.init(status: status, fields: Self.pack(headers), body: body)
    }

    private init(status: Int, fields: HTTPFieldBlock, body: [UInt8]) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// A 200 without a body: `idHeader`, then `apns-unique-id` when `uniqueID` is given (written
    /// in lower case, as observed). Packed as it is made: every accepted push is answered so.
    static func accepted(idHeader: HTTPHeader, uniqueID: NotificationID?) -> SimulatorResponse {
        var fields = HTTPFieldBlock(reservingCapacity: 2 * (9 + "apns-unique-id".utf8.count + 36))
        append(idHeader.name, idHeader.value, to: &fields)
        uniqueID?.withUTF8Description { append("apns-unique-id", bytes: $0, to: &fields) }
        return SimulatorResponse(status: 200, fields: fields, body: [])
    }

    /// The headers in order.
    public var headers: [HTTPHeader] {
        get { fields.regularFields }
        set { fields = Self.pack(newValue) }
    }

    /// Equal status, headers and body; how a field may be indexed is a hint to the encoder only.
    public static func == (left: SimulatorResponse, right: SimulatorResponse) -> Bool {
        left.status == right.status && left.body == right.body && left.headers == right.headers
    }

    /// Ids that name one request or answer: sent once, never worth a header-table entry.
    private static let uniqueValueNames = ["apns-id", "apns-unique-id", "apns-request-id"]

    private static func pack(_ headers: [HTTPHeader]) -> HTTPFieldBlock {
        var fields = HTTPFieldBlock(reservingCapacity: headers.reduce(0) { $0 + 9 + $1.name.utf8.count + $1.value.utf8.count })
        for header in headers { append(header.name, header.value, to: &fields) }
        return fields
    }

    /// Appends one header with the indexing its name calls for.
    private static func append(_ name: String, _ value: String, to fields: inout HTTPFieldBlock) {
        var value = value
        value.withUTF8 { append(name, bytes: $0, to: &fields) }
    }

    private static func append(_ name: String, bytes value: UnsafeBufferPointer<UInt8>, to fields: inout HTTPFieldBlock) {
        fields.append(name, bytes: value, indexing: uniqueValueNames.contains(name) ? .never : .allowed)
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
