/// One HTTP header field. Names are lower case, as HTTP/2 requires.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    /// A header; `name` must already be lower case.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Shorthand for `HTTPHeader(name:value:)`.
    public init(_ name: String, _ value: String) {
        self.init(name: name, value: value)
    }
}
