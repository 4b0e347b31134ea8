/// How to reach and set up a Redis connection. Its descriptions and mirror never show the password.
public struct RedisConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where the server listens.
    public enum Endpoint: Sendable, Equatable {
        /// A host name or address, and a TCP port.
        case tcp(host: String, port: Int)
        /// The path of a Unix domain socket (`unixsocket` in redis.conf).
        case unixSocket(path: String)
    }

    /// How the deployment is laid out.
    public enum Topology: Sendable, Equatable {
        /// One server, at ``RedisConfiguration/endpoint``.
        case standalone
        /// A master found through Redis Sentinel, found again after a failover.
        case sentinel(RedisSentinelConfiguration)
        /// A Redis Cluster, its slot map read from the first of these nodes that answers.
        case cluster(seeds: [Endpoint])
    }

    /// The server in ``Topology/standalone`` mode; unused in the others.
    public var endpoint: Endpoint
    public var topology: Topology
    /// TLS on every connection (to sentinels and cluster nodes too); `nil` for plain TCP.
    public var tls: RedisTLSConfiguration?
    /// Sent with `AUTH` after every connect; never printed.
    public var password: String?
    /// An ACL user name for `AUTH username password` (Redis 6+); `nil` authenticates as `default`.
    public var username: String?
    /// The database selected with `SELECT` after every connect.
    public var database: Int
    /// Bounds connecting: the TCP or Unix connect plus `AUTH`, `SELECT` and a `PING`.
    /// Host name resolution (`getaddrinfo`) is not covered: use addresses where that matters.
    public var connectTimeout: Duration
    /// Bounds one call from the first byte written to the last reply read, a whole pipeline included
    /// (a reconnect before it is bounded by ``connectTimeout`` and ``reconnect`` instead).
    public var commandTimeout: Duration
    /// How to retry connecting after the connection is lost or refused.
    public var reconnect: RedisReconnectPolicy

    public init(
        endpoint: Endpoint,
        password: String? = nil,
        username: String? = nil,
        database: Int = 0,
        connectTimeout: Duration = .seconds(5),
        commandTimeout: Duration = .seconds(5),
        reconnect: RedisReconnectPolicy = RedisReconnectPolicy(),
        topology: Topology = .standalone,
        tls: RedisTLSConfiguration? = nil
    ) {
        self.endpoint = endpoint
        self.topology = topology
        self.tls = tls
        self.password = password
        self.username = username
        self.database = database
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.reconnect = reconnect
    }

    public var description: String {
        let place = switch topology {
        case .standalone: endpoint.description
        case .sentinel(let sentinel): "master \(sentinel.masterName) via sentinels \(sentinel.sentinels.map(\.description).joined(separator: ","))"
        case .cluster(let seeds): "cluster via \(seeds.map(\.description).joined(separator: ","))"
        }
        let credentials = password == nil ? "no password" : "user \(username ?? "default") with password <redacted>"
        let security = tls == nil ? "" : tls?.insecureSkipVerify == true ? ", TLS without verification" : ", TLS"
        return "redis \(place) db \(database), \(credentials)\(security)"
    }

    public var debugDescription: String {
        description
    }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "endpoint": endpoint, "username": username as Any, "password": password == nil ? "nil" : "<redacted>",
            "topology": topology, "tls": tls as Any, "database": database, "connectTimeout": connectTimeout, "commandTimeout": commandTimeout, "reconnect": reconnect,
        ])
    }
}

extension RedisConfiguration.Endpoint: CustomStringConvertible {
    /// `host:port` (an IPv6 host in brackets), or `unix:path`.
    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket(let path): "unix:\(path)"
        }
    }
}
