/// Why an ``EmbeddedHTTPServer`` could not start.
public struct EmbeddedHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The port that was asked for (0 = any free port).
    public let port: UInt16
    /// `errno` after libmicrohttpd gave up, for example `EADDRINUSE` (98).
    public let errorNumber: Int32

    /// The failure to start on `port` with `errno` `errorNumber`.
    public init(port: UInt16, errorNumber: Int32) {
        self.port = port
        self.errorNumber = errorNumber
    }

    public var description: String { "cannot start the HTTP server on port \(port) (errno \(errorNumber))" }
}
