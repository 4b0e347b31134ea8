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
        readTopology(&section)
        readTLS(&section)
        section.finish()
    }

    /// The deployment's layout, as `mode` names it.
    private enum Mode: String, CaseIterable {
        case standalone, sentinel, cluster
    }

    /// `mode` and what it needs: `nodes` for a cluster, the `sentinel` section for Sentinel.
    private mutating func readTopology(_ section: inout ConfigurationSection) {
        let mode = section.value("mode", ConfigurationValueType<Mode>.choice()) ?? .standalone
        let nodes = section.list("nodes", .hostAndPort)
        var sentinelSection = section.section("sentinel")
        switch mode {
        case .standalone:
            for key in ["nodes", "sentinel"] where section.isSet(key) {
                section.report(.invalidValue, key, at: section.origin(key), "is read only with mode: \(key == "nodes" ? "cluster" : "sentinel")")
            }
        case .cluster:
            if section.requirePresence("nodes"), let nodes {
                topology = .cluster(seeds: nodes.map { .tcp(host: $0.host, port: Int($0.port)) })
            }
            if database != 0 { section.report(.invalidValue, "database", at: section.origin("database"), "must be 0 with mode: cluster (Redis Cluster has one database)") }
        case .sentinel:
            let masterName = sentinelSection.required("master_name", .text)
            let addresses = sentinelSection.requirePresence("addresses") ? sentinelSection.list("addresses", .hostAndPort) : nil
            if let masterName, let addresses {
                topology = .sentinel(RedisSentinelConfiguration(masterName: masterName, sentinels: addresses.map { .tcp(host: $0.host, port: Int($0.port)) }))
            }
        }
        if mode != .standalone {
            for key in ["host", "port", "unix_socket"] where section.isSet(key) {
                section.report(.invalidValue, key, at: section.origin(key), "is not read with mode: \(mode.rawValue); the servers come from \(mode == .cluster ? "nodes" : "sentinel.addresses")")
            }
        }
        if mode == .sentinel { sentinelSection.finish() }
    }

    /// `tls` and the `tls_…` files; the `tls_…` keys only with `tls: true`.
    private mutating func readTLS(_ section: inout ConfigurationSection) {
        let enabled = section.value("tls", .boolean) ?? false
        let certificateAuthorityFile = section.existingFile("tls_ca_file")
        let certificateFile = section.existingFile("tls_cert_file")
        let privateKeyFile = section.existingFile("tls_key_file")
        let insecureSkipVerify = section.value("tls_insecure_skip_verify", .boolean) ?? false
        guard enabled else {
            for key in ["tls_ca_file", "tls_cert_file", "tls_key_file", "tls_insecure_skip_verify"] where section.isSet(key) {
                section.report(.invalidValue, key, at: section.origin(key), "is read only with tls: true")
            }
            return
        }
        if case .unixSocket = endpoint, topology == .standalone {
            section.report(.invalidValue, "tls", at: section.origin("tls"), "Redis serves TLS over TCP only, not on unix_socket")
        }
        if privateKeyFile != nil, certificateFile == nil {
            section.report(.missingKey, "tls_cert_file", at: section.origin("tls_key_file"), "is required with tls_key_file")
        }
        tls = RedisTLSConfiguration(certificateAuthorityFile: certificateAuthorityFile, certificateFile: certificateFile,
                                    privateKeyFile: privateKeyFile, insecureSkipVerify: insecureSkipVerify)
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
