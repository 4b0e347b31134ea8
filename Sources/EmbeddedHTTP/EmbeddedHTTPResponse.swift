/// What the handler of an ``EmbeddedHTTPServer`` answers.
public struct EmbeddedHTTPResponse: Sendable, Equatable {
    public var status: Int
    /// The `content-type` header.
    public var contentType: String
    public var body: [UInt8]

    /// A response with these parts.
    public init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// A JSON document.
    public static func json(_ body: [UInt8], status: Int = 200) -> EmbeddedHTTPResponse {
        EmbeddedHTTPResponse(status: status, contentType: "application/json", body: body)
    }

    /// Plain text, for errors and human-readable pages.
    public static func text(_ text: String, status: Int = 200) -> EmbeddedHTTPResponse {
        EmbeddedHTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}
