import HTTPFields

/// One complete HTTP/2 request, as the transport hands it to ``APNsSimulator/handle(_:on:)``.
///
/// Its fields are the bytes the transport received, packed into one block (`:method` and `:path`
/// among them): the simulator reads the few it checks in place, and a `String` is made of a value
/// only where a check or the answer needs one.
public struct SimulatorRequest: Sendable {
    /// Every field, pseudo-headers included, as received.
    public let fields: HTTPFieldBlock
    public var body: [UInt8]
    /// Where the headers APNs reads lie in `fields`, found once.
    let apns: APNsHeaders

    /// A request of these parts (tests, and callers without a field block).
    public init(method: String, path: String, headers: [HTTPHeader], body: [UInt8]) {
        var fields = HTTPFieldBlock()
        fields.append(":method", method)
        fields.append(":path", path)
        for header in headers { fields.append(header.name, header.value) }
        self.init(fields: fields, body: body)
    }

    /// A request as the transport received it: `fields` holds the pseudo-headers (`:method`,
    /// `:path`) and the regular headers, names lower case, duplicates kept.
    public init(fields: HTTPFieldBlock, body: [UInt8]) {
        self.fields = fields
        self.body = body
        self.apns = APNsHeaders(fields)
    }

    /// `:method`.
    public var method: String { text(apns.method) ?? "" }

    /// `:path`, including any query string.
    public var path: String { text(apns.path) ?? "" }

    /// The regular headers in arrival order, names lower case, duplicates kept; no pseudo-headers.
    public var headers: [HTTPHeader] { fields.regularFields }

    /// The text of a value found in ``apns``; nil when the header is absent.
    func text(_ value: Range<Int>?) -> String? {
        value.map(fields.value(in:))
    }

    /// Lends the bytes of a value found in ``apns``.
    func withBytes<Result>(_ value: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        fields.withValue(in: value, body)
    }

    /// Whether `:method` is `POST`, read in place.
    var isPOST: Bool {
        guard let method = apns.method else { return false }
        return withBytes(method) { $0.elementsEqual("POST".utf8) }
    }

    /// Whether `:path` starts with `prefix`, read in place.
    func pathHasPrefix(_ prefix: String) -> Bool {
        guard let path = apns.path else { return false }
        return withBytes(path) { $0.starts(with: prefix.utf8) }
    }

    /// The part of `:path` after its first `prefixLength` bytes, which are ASCII.
    func path(droppingPrefixOf prefixLength: Int) -> String {
        guard let path = apns.path, path.count >= prefixLength else { return "" }
        return withBytes(path) { String(decoding: UnsafeBufferPointer(rebasing: $0[prefixLength...]), as: UTF8.self) }
    }
}
