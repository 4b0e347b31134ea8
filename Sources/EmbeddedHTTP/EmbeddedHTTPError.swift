/// Why an ``EmbeddedHTTPServer`` could not start.
public struct EmbeddedHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The address that was asked for.
    public let address: String
    /// The port that was asked for (0 = any free port).
    public let port: UInt16
    /// `errno` after libmicrohttpd gave up, for example `EADDRINUSE` (98), `EADDRNOTAVAIL` (99: no
    /// interface has the address), or `EINVAL` (22: the address is not an IP address).
    public let errorNumber: Int32

    /// The failure to start on `address` and `port` with `errno` `errorNumber`.
    public init(address: String, port: UInt16, errorNumber: Int32) {
        self.address = address
        self.port = port
        self.errorNumber = errorNumber
    }

    public var description: String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "cannot start the HTTP server on \(host):\(port) (errno \(errorNumber))"
    }
}
