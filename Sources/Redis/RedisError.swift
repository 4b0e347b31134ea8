/// A failure talking to Redis: a machine-readable ``code``, a human-readable ``message`` that never
/// contains the password, and whether retrying (on this or a new connection) can help.
public struct RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a stable name for logs, metrics and outcome events (`redis_timeout`, …).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) {
            description = name
        }

        /// Nothing listens at the address (TCP `ECONNREFUSED`, or no Unix socket file).
        public static let connectionRefused = Code("redis_connection_refused")
        /// The server closed the connection or it broke (EOF, `ECONNRESET`, `EPIPE`).
        public static let connectionLost = Code("redis_connection_lost")
        /// Connecting or a command did not finish within its timeout.
        public static let timeout = Code("redis_timeout")
        /// The host name could not be resolved.
        public static let addressResolution = Code("redis_address_resolution")
        /// Another socket failure (the message carries `errno`'s text).
        public static let io = Code("redis_io")
        /// The bytes from the server are not RESP; the connection is dropped.
        public static let protocolError = Code("redis_protocol")
        /// The server answered with an error reply; ``RedisError/serverErrorPrefix`` tells which.
        public static let serverError = Code("redis_server_error")
        /// The configuration cannot work (for example a Unix socket path longer than the OS allows).
        public static let invalidConfiguration = Code("redis_invalid_configuration")
        /// The TLS handshake failed (an unverifiable certificate, a name it does not carry) or the
        /// TLS session broke.
        public static let tls = Code("redis_tls")
        /// No usable master: no sentinel named one that answers as master, or no cluster node gave
        /// a slot map (a failover under way, or every node unreachable).
        public static let topology = Code("redis_topology")
    }

    /// Server error prefixes that describe a passing condition of the server, not of the command.
    private static let retryableServerPrefixes: Set<String> = [
        "LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN",
        // A failover under way: a demoted master, a slot that moved again after the redirects followed.
        "READONLY", "MOVED", "ASK",
    ]

    public let code: Code
    /// Details for people: the server's error text, or the failing step and `errno`'s text.
    public let message: String
    /// For ``Code/serverError``: the first word of the server's reply, such as `ERR`, `WRONGTYPE`,
    /// `NOSCRIPT`, `WRONGPASS`, `NOAUTH`; `nil` for other codes.
    public let serverErrorPrefix: String?

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        serverErrorPrefix = nil
    }

    /// An error reply from the server, split into its prefix and text.
    init(serverReply text: String) {
        code = .serverError
        message = text
        let prefix = text.prefix { $0 != " " }
        serverErrorPrefix = prefix.isEmpty ? nil : String(prefix)
    }

    /// Whether the same request may succeed later: connection failures and timeouts (after a
    /// reconnect), and the server's transient states (`LOADING`, `BUSY`, `TRYAGAIN`, …).
    public var isRetryable: Bool {
        switch code {
        case .connectionRefused, .connectionLost, .timeout, .addressResolution, .io, .topology:
            true
        case .serverError:
            serverErrorPrefix.map(Self.retryableServerPrefixes.contains) ?? false
        default:
            false
        }
    }

    public var description: String {
        "\(code): \(message)"
    }
}
