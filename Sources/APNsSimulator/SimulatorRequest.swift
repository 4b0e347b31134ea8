/// One complete HTTP/2 request, as the transport hands it to ``APNsSimulator/handle(_:on:)``.
public struct SimulatorRequest: Sendable {
    /// `:method`.
    public var method: String
    /// `:path`, including any query string.
    public var path: String
    /// The regular headers in arrival order, names lower case, duplicates kept; no pseudo-headers.
    public var headers: [HTTPHeader] {
        didSet { apns = APNsHeaders(headers) }
    }
    public var body: [UInt8]
    /// The headers APNs reads, found once.
    private(set) var apns: APNsHeaders

    /// A request as the transport assembled it from HEADERS and DATA frames.
    public init(method: String, path: String, headers: [HTTPHeader], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.apns = APNsHeaders(headers)
    }
}
