import TLS

/// Finds the master through Redis Sentinel and sends everything to it; finds it again when its
/// connection is lost or closed by the server (Sentinel closes clients' connections when it
/// reconfigures a server) or when it answers `READONLY` (it was demoted to a replica).
///
/// A call that fails is not re-sent (the master may have run it); it throws, and the next call
/// asks the sentinels again, retrying as ``RedisConfiguration/reconnect`` says while a failover runs.
final class RedisSentinelRouter: RedisRouter {
    private let configuration: RedisConfiguration
    private let sentinel: RedisSentinelConfiguration
    private let tlsContext: TLSContext?
    private var master: RedisConnection?
    private var random = SystemRandomNumberGenerator()

    init(configuration: RedisConfiguration, sentinel: RedisSentinelConfiguration, tlsContext: TLSContext?) throws(RedisError) {
        guard !sentinel.sentinels.isEmpty else { throw RedisError(.invalidConfiguration, "Sentinel mode needs at least one sentinel address") }
        self.configuration = configuration
        self.sentinel = sentinel
        self.tlsContext = tlsContext
        master = try discover()
    }

    func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply] {
        let master = try currentMaster()
        let replies: [RedisReply]
        do {
            replies = try master.pipeline(commands)
        } catch {
            self.master = nil
            throw error
        }
        if replies.contains(where: { $0.error?.serverErrorPrefix == "READONLY" }) { self.master = nil }
        return replies
    }

    var isConnected: Bool {
        master?.isConnected ?? false
    }

    func close() {
        master = nil
    }

    private func currentMaster() throws(RedisError) -> RedisConnection {
        if let master, master.hasUsableLink { return master }
        master = nil
        let found = try discover()
        master = found
        return found
    }

    /// Asks each sentinel in turn for the master and checks it with `ROLE`; when none names a master,
    /// waits and asks again, as the reconnect policy allows.
    private func discover() throws(RedisError) -> RedisConnection {
        try configuration.reconnect.retrying(using: &random) { () throws(RedisError) in
            var failure = RedisError(.topology, "no sentinel named a master for \(sentinel.masterName)")
            for address in sentinel.sentinels {
                do throws(RedisError) {
                    return try master(from: address)
                } catch {
                    failure = error
                }
            }
            throw failure
        }
    }

    private func master(from address: RedisConfiguration.Endpoint) throws(RedisError) -> RedisConnection {
        let asked = try RedisConnection(node: address, of: configuration, tlsContext: tlsContext, authenticate: false)
        let reply = try asked.send(RedisCommand("SENTINEL", "get-master-addr-by-name", sentinel.masterName))
        guard let fields = reply.array, fields.count == 2, let host = fields[0].string, let port = fields[1].string.flatMap({ Int($0) }) else {
            throw RedisError(.topology, "sentinel \(address) knows no master named \(sentinel.masterName)")
        }
        let candidate = try RedisConnection(node: .tcp(host: host, port: port), of: configuration, tlsContext: tlsContext)
        let role = try candidate.send(RedisCommand("ROLE"))
        guard role.array?.first?.string == "master" else {
            throw RedisError(.topology, "sentinel \(address) named \(host):\(port) as master of \(sentinel.masterName), which is not (yet) a master")
        }
        return candidate
    }
}
