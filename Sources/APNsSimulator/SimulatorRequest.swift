import HTTPFields

/// One complete HTTP/2 request, as the transport hands it to ``APNsSimulator/handle(_:on:)``.
///
/// Its fields are the bytes the transport received, packed into one block (`:method` and `:path`
/// among them): the simulator reads the few it checks in place, and a `String` is made of a value
/// only where a check or the answer needs one.
public struct SimulatorRequest: Sendable {
    public var body: [UInt8]
    /// The headers APNs reads, found once.
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
        self.body = body
        self.apns = APNsHeaders(fields)
    }

    /// Every field, pseudo-headers included, as received.
    public var fields: HTTPFieldBlock { apns.fields }

    /// `:method`.
    public var method: String { apns.method ?? "" }

    /// `:path`, including any query string.
    public var path: String { apns.path ?? "" }

    /// The regular headers in arrival order, names lower case, duplicates kept; no pseudo-headers.
    public var headers: [HTTPHeader] { fields.regularFields }

    /// Whether `:method` is `POST`, read in place.
    var isPOST: Bool {
        guard let range = apns.methodRange else { return false }
        return apns.withBytes(range) { $0.elementsEqual("POST".utf8) }
    }

    /// Whether `:path` starts with `prefix`, read in place.
    func pathHasPrefix(_ prefix: String) -> Bool {
        guard let range = apns.pathRange else { return false }
        return apns.withBytes(range) { $0.starts(with: prefix.utf8) }
    }

    /// The part of `:path` after its first `prefixLength` bytes, which are ASCII.
    func path(droppingPrefixOf prefixLength: Int) -> String {
        guard let range = apns.pathRange, range.count >= prefixLength else { return "" }
        return apns.withBytes(range) { String(decoding: UnsafeBufferPointer(rebasing: $0[prefixLength...]), as: UTF8.self) }
    }
}
