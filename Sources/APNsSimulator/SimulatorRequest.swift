/// One complete HTTP/2 request, as the transport hands it to ``APNsSimulator/handle(_:on:)``.
public struct SimulatorRequest: Sendable {
    /// `:method`.
    public var method: String
    /// `:path`, including any query string.
    public var path: String
    /// The regular headers in arrival order, names lower case, duplicates kept; no pseudo-headers.
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    /// A request as the transport assembled it from HEADERS and DATA frames.
    public init(method: String, path: String, headers: [HTTPHeader], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (lower case), or nil when it is absent.
    func value(of name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The headers APNs reads. Only these count for `DuplicateHeaders`: the simulator ignores
    /// every other header (spec §7.5), repeated or not.
    static let apnsHeaderNames: Set<String> = [
        "authorization", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-push-type",
        "apns-collapse-id", "apns-channel-id", "apns-request-id",
    ]

    /// Whether a header APNs reads appears more than once. Requests carry a handful of headers, so
    /// comparing each with those before it is cheaper than building a set; only a repeated name is
    /// looked up among the APNs names (hashing every name would cost more than the comparisons).
    var repeatsAnAPNsHeader: Bool {
        for (index, header) in headers.enumerated() where headers[..<index].contains(where: { $0.name == header.name }) {
            if Self.apnsHeaderNames.contains(header.name) { return true }
        }
        return false
    }
}
