import HTTPFields

/// One HTTP/2 header field. Names are lower-case, as HTTP/2 requires.
public typealias HTTP2Header = HTTPField

/// Regular header fields packed once, lent to nghttp2 in place (see ``HTTP2Connection/send(method:path:authority:connectionFields:fields:body:completion:)``).
public typealias HTTP2FieldBlock = HTTPFieldBlock

/// A complete request as a server received it.
public struct HTTP2Request: Sendable, Equatable {
    public var streamID: Int32
    public var method: String
    public var path: String
    public var authority: String?
    /// Regular headers in arrival order, repeated names kept (pseudo-headers are the fields above).
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    public init(streamID: Int32, method: String, path: String, authority: String? = nil,
                headers: [HTTP2Header], body: [UInt8]) {
        self.streamID = streamID
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
    }
}

/// A complete response.
public struct HTTP2Response: Sendable, Equatable {
    public var status: Int
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTP2Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, by lower-case name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
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
