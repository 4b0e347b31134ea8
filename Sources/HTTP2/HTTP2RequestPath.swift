/// A request's `:path` as a fixed route and what follows it (`/3/device/` and a device token):
/// joined only where the request is submitted, in a buffer the session keeps, so a path that
/// differs on every request costs no string of its own.
public struct HTTP2RequestPath: Sendable {
    public let route: StaticString
    public let rest: String

    public init(route: StaticString, _ rest: String) {
        self.route = route
        self.rest = rest
    }

    /// A path given whole.
    public init(_ path: String) {
        self.init(route: "", path)
    }
}
