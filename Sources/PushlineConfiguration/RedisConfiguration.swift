import Foundation

/// How Pushline reaches Redis (idempotency claims, collapse windows, the token registry).
public struct RedisConfiguration: Sendable, CustomStringConvertible {
    /// Where the server listens.
    public enum Endpoint: Sendable, Equatable, CustomStringConvertible {
        case tcp(HostAndPort)
        case unixSocket(path: String)

        public var description: String {
            switch self {
            case .tcp(let address): address.description
            case .unixSocket(let path): "unix:\(path)"
            }
        }
    }

    public var endpoint = Endpoint.tcp(HostAndPort(host: "127.0.0.1", port: 6379))
    /// `SELECT`ed after connecting.
    public var database = 0
    /// The ACL user for `AUTH`; nil for the default user.
    public var username: String?
    /// From `password_file` or `PUSHLINE_REDIS_PASSWORD`, never from the file itself.
    public var password: Secret?
    public var connectTimeout = Duration.seconds(2)
    /// How long one command (one pipelined batch) may take before the connection counts as lost.
    public var commandTimeout = Duration.seconds(1)

    public init() {}

    /// The endpoint, database, user and whether a password is set; never the password.
    public var description: String {
        let user = username.map { ", user \($0)" } ?? ""
        return "\(endpoint) database \(database)\(user)\(password == nil ? "" : ", with password")"
    }

    /// Reads the `redis` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        let host = section.value("host", .text)
        let port = section.value("port", .integer(1...65_535))
        if let socket = section.value("unix_socket", .text) {
            if section.isSet("host") || section.isSet("port") {
                section.report(.invalidValue, "unix_socket", at: section.origin("unix_socket"),
                               "set either unix_socket or host and port, not both")
            }
            endpoint = .unixSocket(path: section.resolve(socket))
        } else if host != nil || port != nil, case .tcp(let address) = endpoint {
            endpoint = .tcp(HostAndPort(host: host ?? address.host, port: port.map { UInt16($0) } ?? address.port))
        }
        if let number = section.value("database", .integer(0...Int(Int32.max))) { database = number }
        username = section.value("username", .text)
        let passwordFromEnvironment = section.secretFromEnvironment("password", instead: "password_file")
        if let file = section.existingFile("password_file") {
            password = Self.readPassword(file, section: section)
        }
        if let passwordFromEnvironment { password = passwordFromEnvironment }
        let timeouts = Duration.milliseconds(1)...Duration.seconds(60)
        if let timeout = section.value("connect_timeout", .duration(timeouts)) { connectTimeout = timeout }
        if let timeout = section.value("command_timeout", .duration(timeouts)) { commandTimeout = timeout }
        section.finish()
    }

    /// The first line of the file (a trailing newline is not part of a password).
    private static func readPassword(_ file: String, section: ConfigurationSection) -> Secret? {
        guard let data = FileManager.default.contents(atPath: file),
              let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first, !line.isEmpty else {
            section.report(.unusableCredentials, "password_file", at: section.origin("password_file"),
                           "\"\(file)\" holds no password")
            return nil
        }
        return Secret(String(line))
    }
}
