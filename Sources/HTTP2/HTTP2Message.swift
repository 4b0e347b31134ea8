import HTTPFields

/// One HTTP/2 header field. Names are lower-case, as HTTP/2 requires.
public typealias HTTP2Header = HTTPField

/// Regular header fields packed once, lent to nghttp2 in place (see ``HTTP2Connection/send(method:path:authority:connectionFields:fields:body:completion:)``).
public typealias HTTP2FieldBlock = HTTPFieldBlock

/// A complete request as a server received it.
///
/// Its fields stay the bytes nghttp2 decoded, packed into one block (the pseudo-headers first, as
/// HTTP/2 sends them, then the regular fields in arrival order, repeated names kept): a server reads
/// the few fields it needs in place (``fields``) instead of paying for a `String` per name and value.
/// The `String` properties below are made when asked for.
public struct HTTP2Request: Sendable, Equatable {
    public var streamID: Int32
    /// Every field received, pseudo-headers included.
    public var fields: HTTP2FieldBlock
    public var body: [UInt8]

    public init(streamID: Int32, method: String, path: String, authority: String? = nil,
                headers: [HTTP2Header], body: [UInt8]) {
        var fields = HTTP2FieldBlock()
        fields.append(":method", method)
        fields.append(":path", path)
        if let authority { fields.append(":authority", authority) }
        for header in headers { fields.append(header.name, header.value) }
        self.init(streamID: streamID, fields: fields, body: body)
    }

    /// A request of fields as received: pseudo-headers first.
    public init(streamID: Int32, fields: HTTP2FieldBlock, body: [UInt8]) {
        self.streamID = streamID
        self.fields = fields
        self.body = body
    }

    /// `:method`; empty when absent (nghttp2 refuses such requests before they get here).
    public var method: String { pseudoHeader(":method") ?? "" }
    /// `:path`; empty when absent.
    public var path: String { pseudoHeader(":path") ?? "" }
    public var authority: String? { pseudoHeader(":authority") }

    /// Regular headers in arrival order, repeated names kept (the pseudo-headers are the properties
    /// above, `:scheme` aside).
    public var headers: [HTTP2Header] { fields.regularFields }

    private func pseudoHeader(_ name: String) -> String? {
        fields.withFirstValue(named: name) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }
}

/// A complete response.
///
/// Its regular fields stay packed in one block as they were received (``fields``): a client reads
/// the one or two it needs in place (``withHeaderValue(_:_:)``), and a response costs one array for
/// its fields rather than a `String` per name and value. ``headers`` makes them text when asked for.
public struct HTTP2Response: Sendable, Equatable {
    public var status: Int
    /// The regular fields in arrival order, repeated names kept.
    public var fields: HTTP2FieldBlock
    public var body: [UInt8]

    public init(status: Int, headers: [HTTP2Header] = [], body: [UInt8] = []) {
        self.init(status: status, fields: HTTP2FieldBlock(headers), body: body)
    }

    /// A response of fields as received.
    public init(status: Int, fields: HTTP2FieldBlock, body: [UInt8] = []) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// The regular fields as text, in arrival order.
    public var headers: [HTTP2Header] {
        get { fields.regularFields }
        set { fields = HTTP2FieldBlock(newValue) }
    }

    /// Equal status, headers and body; how a field may be indexed is a hint to the encoder only.
    public static func == (left: HTTP2Response, right: HTTP2Response) -> Bool {
        left.status == right.status && left.body == right.body && left.headers == right.headers
    }

    /// The first value of a header, by lower-case name.
    public func header(_ name: String) -> String? {
        withHeaderValue(name) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Lends the bytes of the first value of a header, by lower-case name (nil when absent), read
    /// in place.
    public func withHeaderValue<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Result) -> Result {
        fields.withFirstValue(named: name, body)
    }
}

/// A GOAWAY frame: streams above `lastStreamID` were not processed and may be retried elsewhere.
public struct HTTP2GoAway: Sendable, Equatable {
    public var lastStreamID: Int32
    public var errorCode: UInt32
    public var debugData: [UInt8]

    public init(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        self.lastStreamID = lastStreamID
        self.errorCode = errorCode
        self.debugData = debugData
    }
}

/// HTTP/2 error codes (RFC 9113 §7) that Pushline uses by name.
public enum HTTP2ErrorCode {
    public static let noError: UInt32 = 0x0
    public static let protocolError: UInt32 = 0x1
    public static let internalError: UInt32 = 0x2
    public static let refusedStream: UInt32 = 0x7
    public static let cancel: UInt32 = 0x8
}
