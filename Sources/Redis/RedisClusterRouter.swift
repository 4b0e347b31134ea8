import TLS

/// Routes commands across a Redis Cluster: each to the master of its key's slot (``RedisSlot``),
/// as the slot map read with `CLUSTER SLOTS` says; one pipeline per node per call, every node's
/// written before any node's replies are read, so the nodes work on theirs at the same time. A `MOVED` reply
/// sends the command to the node it names and has the map read again; an `ASK` reply sends it there
/// once, after `ASKING`. After ``maximumRedirects`` the redirect stays in place as the reply
/// (retryable, as ``RedisError/isRetryable`` says). An `MGET` across slots is split by slot and its
/// replies joined (``RedisMultiGetSplit``).
///
/// A node whose connection fails fails the call (the others' replies are lost with it, as a lost
/// connection loses a pipeline's): the call is not re-sent, and the next one reads the map again
/// first, so it goes to the replica promoted in the lost master's place.
final class RedisClusterRouter: RedisRouter {
    /// How many times one call follows `MOVED`/`ASK` for a command.
    private static let maximumRedirects = 5

    private let configuration: RedisConfiguration
    private let seeds: [RedisConfiguration.Endpoint]
    private let tlsContext: TLSContext?
    /// Open connections, by the node's `host:port`.
    private var nodes: [String: RedisConnection] = [:]
    /// The masters in the slot map.
    private var masters: [RedisConfiguration.Endpoint] = []
    /// Per slot, the index of its master in ``masters``; -1 when no master serves it.
    private var owners = [Int16](repeating: -1, count: RedisSlot.count)
    private var mapIsStale = true
    private var random = SystemRandomNumberGenerator()

    init(configuration: RedisConfiguration, seeds: [RedisConfiguration.Endpoint], tlsContext: TLSContext?) throws(RedisError) {
        guard !seeds.isEmpty else { throw RedisError(.invalidConfiguration, "Cluster mode needs at least one node address") }
        guard configuration.database == 0 else { throw RedisError(.invalidConfiguration, "Redis Cluster has only database 0") }
        self.configuration = configuration
        self.seeds = seeds
        self.tlsContext = tlsContext
        try refreshMap()
    }

    var isConnected: Bool {
        nodes.values.contains { $0.isConnected }
    }

    func close() {
        nodes.removeAll()
        mapIsStale = true
    }

    /// An `MGET` whose keys lie in several slots goes as one `MGET` per slot, each to its slot's
    /// master with the rest of the pipeline, its reply joined in the keys' order (``RedisMultiGetSplit``).
    func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply] {
        let split = RedisMultiGetSplit(commands)
        return split.joined(try routed(split.commands))
    }

    /// The replies to `commands`, each sent to its slot's master, redirects followed.
    private func routed(_ commands: [RedisCommand]) throws(RedisError) -> [RedisReply] {
        if mapIsStale { try refreshMap() }
        var replies = [RedisReply](repeating: .null, count: commands.count)
        var pending = commands.indices.map { Route(index: $0, node: nil, asking: false) }
        for round in 0...Self.maximumRedirects {
            // One batch per node: the masters by their index in the map, then the nodes redirects name.
            var targets = masters
            var batches = [[Route]](repeating: [], count: masters.count)
            for route in pending {
                let target: Int
                if let node = route.node {
                    if let known = targets.firstIndex(of: node) {
                        target = known
                    } else {
                        target = targets.count
                        targets.append(node)
                        batches.append([])
                    }
                } else if let owner = master(of: commands[route.index]) {
                    target = owner
                } else {
                    replies[route.index] = .error(RedisError(serverReply: "CLUSTERDOWN Hash slot not served (Pushline's slot map)"))
                    mapIsStale = true
                    continue
                }
                batches[target].append(route)
            }
            pending = []
            var failure: RedisError?
            // Every node's pipeline is written before any reply is read, so the nodes work at once.
            var started: [(name: String, routes: [Route], connection: RedisConnection, pipeline: RedisPendingPipeline)] = []
            for (target, routes) in batches.enumerated() where !routes.isEmpty {
                let name = targets[target].description
                var sent: [RedisCommand] = []
                sent.reserveCapacity(routes.count)
                for route in routes {
                    if route.asking { sent.append(RedisCommand("ASKING")) }
                    sent.append(commands[route.index])
                }
                do {
                    let connection = try connection(to: targets[target])
                    started.append((name, routes, connection, try connection.start(sent)))
                } catch {
                    nodes[name] = nil
                    mapIsStale = true
                    failure = failure ?? error
                }
            }
            for (name, routes, connection, pipeline) in started {
                let answers: [RedisReply]
                do {
                    answers = try connection.finish(pipeline)
                } catch {
                    nodes[name] = nil
                    mapIsStale = true
                    failure = failure ?? error
                    continue
                }
                var position = 0
                for route in routes {
                    if route.asking { position += 1 }
                    let reply = answers[position]
                    position += 1
                    if round < Self.maximumRedirects, let redirect = Redirect(reply) {
                        if !redirect.isAsk { mapIsStale = true }
                        pending.append(Route(index: route.index, node: redirect.node, asking: redirect.isAsk))
                    } else {
                        replies[route.index] = reply
                    }
                }
            }
            if let failure { throw failure }
            if pending.isEmpty { break }
            if mapIsStale { try? refreshMap() }
        }
        return replies
    }

    /// The index in ``masters`` of the master of the command's slot (the first master for a command
    /// without keys); `nil` when no master serves the slot.
    private func master(of command: RedisCommand) -> Int? {
        guard let slot = RedisSlot.of(command) else { return masters.isEmpty ? nil : 0 }
        let owner = Int(owners[slot])
        return owner >= 0 ? owner : nil
    }

    private func connection(to node: RedisConfiguration.Endpoint) throws(RedisError) -> RedisConnection {
        if let open = nodes[node.description] { return open }
        let opened = try RedisConnection(node: node, of: configuration, tlsContext: tlsContext)
        nodes[node.description] = opened
        return opened
    }

    /// Reads the slot map from the known masters, then the seeds, the first that answers; while
    /// none does (a failover under way), waits and tries again as the reconnect policy allows.
    private func refreshMap() throws(RedisError) {
        try configuration.reconnect.retrying(using: &random) { () throws(RedisError) in
            var failure = RedisError(.topology, "no cluster node gave a slot map")
            var candidates = masters
            for seed in seeds where !candidates.contains(seed) { candidates.append(seed) }
            for candidate in candidates {
                do throws(RedisError) {
                    let reply = try connection(to: candidate).send(RedisCommand("CLUSTER", "SLOTS"))
                    try apply(slots: reply, askedAt: candidate)
                    mapIsStale = false
                    return
                } catch {
                    nodes[candidate.description] = nil
                    failure = error
                }
            }
            throw failure
        }
    }

    /// Takes a `CLUSTER SLOTS` reply: `[start, end, [host, port, id, …], replica…]` per range. An
    /// empty host means the node asked. Connections to servers no longer masters are closed.
    private func apply(slots reply: RedisReply, askedAt asked: RedisConfiguration.Endpoint) throws(RedisError) {
        guard let ranges = reply.array, !ranges.isEmpty else { throw RedisError(.topology, "\(asked) answered CLUSTER SLOTS with no slots") }
        var newMasters: [RedisConfiguration.Endpoint] = []
        var newOwners = [Int16](repeating: -1, count: RedisSlot.count)
        for range in ranges {
            guard let fields = range.array, fields.count >= 3, let start = fields[0].integer, let end = fields[1].integer,
                  let node = fields[2].array, node.count >= 2, let host = node[0].string, let port = node[1].integer,
                  start >= 0, end < RedisSlot.count, start <= end else {
                throw RedisError(.protocolError, "\(asked) answered CLUSTER SLOTS with an entry Pushline cannot read")
            }
            let askedHost = if case .tcp(let askedHost, _) = asked { askedHost } else { "" }
            let master = RedisConfiguration.Endpoint.tcp(host: host.isEmpty ? askedHost : host, port: Int(port))
            let index = newMasters.firstIndex(of: master) ?? newMasters.count
            if index == newMasters.count { newMasters.append(master) }
            for slot in Int(start)...Int(end) { newOwners[slot] = Int16(index) }
        }
        masters = newMasters
        owners = newOwners
        let current = Set(newMasters.map(\.description))
        nodes = nodes.filter { current.contains($0.key) }
    }

    /// Where one command goes in a round: to its slot's master (`node` nil), or where a redirect said.
    private struct Route {
        let index: Int
        let node: RedisConfiguration.Endpoint?
        let asking: Bool
    }

    /// A `MOVED <slot> <host>:<port>` or `ASK <slot> <host>:<port>` reply.
    private struct Redirect {
        let node: RedisConfiguration.Endpoint
        let isAsk: Bool

        init?(_ reply: RedisReply) {
            guard let error = reply.error, let prefix = error.serverErrorPrefix, prefix == "MOVED" || prefix == "ASK" else { return nil }
            let words = error.message.split(separator: " ")
            guard words.count == 3, let colon = words[2].lastIndex(of: ":"), let port = Int(words[2][words[2].index(after: colon)...]) else { return nil }
            var host = String(words[2][..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            node = .tcp(host: host, port: port)
            isAsk = prefix == "ASK"
        }
    }
}
