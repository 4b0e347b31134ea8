/// One HTTP header field. Names are lower case, as HTTP/2 requires.
///
/// Shared by the transport (`HTTP2Header`) and the simulator (`HTTPHeader`), so a request's and a
/// response's fields pass between them as they are, without an array converted per request.
public struct HTTPField: Sendable, Equatable {
    public var name: String
    public var value: String

    /// A field; `name` must already be lower case.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Shorthand for `HTTPField(name:value:)`.
    public init(_ name: String, _ value: String) {
        self.init(name: name, value: value)
    }
}
