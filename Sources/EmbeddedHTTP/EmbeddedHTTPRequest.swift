/// One complete HTTP request as the handler of an ``EmbeddedHTTPServer`` sees it.
public struct EmbeddedHTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path without the query string, for example `/inbox`.
    public var path: String
    /// The decoded query arguments (`?token=ab` gives `["token": "ab"]`); the last value wins when a
    /// name repeats.
    public var query: [String: String]
    /// The whole request body.
    public var body: [UInt8]

    /// A request with these parts (the server builds them; tests may too).
    public init(method: String, path: String, query: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
    }
}
