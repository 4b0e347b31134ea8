import CLI
import Foundation
import LocalStack
import Redis

/// The Redis a benchmark runs against, started for the run: one `redis-server`, or a Redis Cluster
/// of three masters (``RedisClusterGroup``, the test kit's), alone or with a replica each.
struct BenchRedisTarget {
    /// Which deployment: `single` or `cluster` on the command line.
    enum Kind: String, CaseIterable {
        case single
        /// Three masters, no replicas: what the cluster's routing costs, without replication.
        case cluster
        /// Three masters and three replicas: on one machine the replicas' replication takes CPU
        /// from everything else, so this measures the machine as much as the cluster.
        case clusterWithReplicas = "cluster-replicas"

        var isCluster: Bool { self != .single }
    }

    let server: RedisServer?
    let cluster: RedisClusterGroup?

    /// Starts the deployment and waits until it serves (a cluster: every node reports it ok).
    init(_ kind: Kind) throws {
        server = kind == .single ? try RedisServer() : nil
        cluster = kind.isCluster ? try RedisClusterGroup(replicas: kind == .cluster ? 0 : 1) : nil
    }

    /// The deployment a command's `--cluster` flag asks for — three masters with a replica each, or
    /// one server — started, after `progress` said so.
    init(clusterFlag arguments: ParsedArguments, progress: (String) -> Void) throws {
        let kind: Kind = arguments.flags.contains("--cluster") ? .clusterWithReplicas : .single
        progress(kind.isCluster ? "starting a Redis Cluster (6 redis-server)" : "starting redis-server")
        try self.init(kind)
    }

    /// The port of the server, or of the cluster's first node (a seed).
    var port: Int { server?.port ?? cluster?.servers[0].port ?? 0 }

    /// A client configuration for this deployment: standalone, or cluster mode seeded with every node.
    var configuration: RedisConfiguration {
        guard let cluster else { return RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port)) }
        let seeds = cluster.servers.map { RedisConfiguration.Endpoint.tcp(host: "127.0.0.1", port: $0.port) }
        return RedisConfiguration(endpoint: seeds[0], topology: .cluster(seeds: seeds))
    }

    /// The `redis` section's lines for `pushline run` (``LocalRunConfiguration/redisSettings``).
    var runSettings: [String] {
        guard let cluster else { return ["  host: 127.0.0.1", "  port: \(port)"] }
        return ["  mode: cluster", "  nodes: [\(cluster.servers.map { "127.0.0.1:\($0.port)" }.joined(separator: ", "))]"]
    }

    /// Every redis-server process of the deployment, named for a CPU table (`redis-server :port`).
    var processes: [(name: String, id: pid_t)] {
        servers.map { ("redis-server :\($0.port)", $0.processID ?? 0) }
    }

    /// Stops every redis-server of the deployment.
    func stop() {
        for server in servers { server.stop() }
    }

    /// Every redis-server of the deployment: the cluster's nodes, or the one server.
    private var servers: [RedisServer] {
        cluster?.servers ?? server.map { [$0] } ?? []
    }

    /// `FLUSHALL` on the server, or on every master of the cluster.
    func flush() throws {
        for port in try cluster?.masterPorts() ?? [port] { _ = try RedisCommandLine.run(port: port, ["FLUSHALL"]) }
    }

    /// Each server's `INFO commandstats` calls by command (`cmdstat_set` → `set`), summed over the
    /// masters of a cluster: what the deployment executed; and under ``readsKey`` the servers'
    /// `total_reads_processed` (`INFO stats`: socket reads that found requests — about one per
    /// pipeline a client sent), so commands per round trip can be read off.
    func commandCalls() throws -> [String: Int] {
        var calls: [String: Int] = [:]
        for port in try cluster?.masterPorts() ?? [port] {
            for line in try RedisCommandLine.run(port: port, ["INFO", "all"]).split(whereSeparator: \.isNewline) {
                if line.hasPrefix("total_reads_processed:"), let reads = Int(line.split(separator: ":")[1]) {
                    calls[Self.readsKey, default: 0] += reads
                }
                guard line.hasPrefix("cmdstat_") else { continue }
                // cmdstat_set:calls=245236,usec=…
                let name = line.dropFirst("cmdstat_".count).prefix { $0 != ":" }
                guard let field = line.split(separator: ",").first?.split(separator: "=").last, let count = Int(field) else { continue }
                calls[String(name), default: 0] += count
            }
        }
        return calls
    }

    /// The entry of ``commandCalls()`` that counts socket reads, not a command.
    static let readsKey = "(reads)"
}
