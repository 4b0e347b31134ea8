import Foundation
import Redis

extension RedisConfiguration {
    /// Redis on this machine's default port, with the client's defaults for the rest: what the
    /// `redis` section starts from.
    static let local = RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 6379))

    /// Reads the `redis` section over ``local``. The password comes only from `password_file` or
    /// `PUSHLINE_REDIS_PASSWORD` (which wins).
    init(reading section: inout ConfigurationSection) {
        self = .local
        let host = section.value("host", .text)
        let port = section.value("port", .integer(1...65_535))
        if let socket = section.value("unix_socket", .text) {
            if section.isSet("host") || section.isSet("port") {
                section.report(.invalidValue, "unix_socket", at: section.origin("unix_socket"),
                               "set either unix_socket or host and port, not both")
            }
            endpoint = .unixSocket(path: section.resolve(socket))
        } else if host != nil || port != nil, case .tcp(let defaultHost, let defaultPort) = endpoint {
            endpoint = .tcp(host: host ?? defaultHost, port: port ?? defaultPort)
        }
        if let number = section.value("database", .integer(0...Int(Int32.max))) { database = number }
        username = section.value("username", .text)
        let passwordFromEnvironment = section.secretFromEnvironment("password", instead: "password_file")
        if let file = section.existingFile("password_file") {
            password = Self.readPassword(file, section: section)
        }
        if let passwordFromEnvironment { password = passwordFromEnvironment.value }
        let timeouts = Duration.milliseconds(1)...Duration.seconds(60)
        if let timeout = section.value("connect_timeout", .duration(timeouts)) { connectTimeout = timeout }
        if let timeout = section.value("command_timeout", .duration(timeouts)) { commandTimeout = timeout }
        section.finish()
    }

    /// The first line of the file (a trailing newline is not part of a password).
    private static func readPassword(_ file: String, section: ConfigurationSection) -> String? {
        guard let data = FileManager.default.contents(atPath: file),
              let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first, !line.isEmpty else {
            section.report(.unusableCredentials, "password_file", at: section.origin("password_file"),
                           "\"\(file)\" holds no password")
            return nil
        }
        return String(line)
    }
}
