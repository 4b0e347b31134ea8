import Foundation

/// A Redis Cluster on loopback for tests: three masters, by default with a replica each (six
/// `redis-server --cluster-enabled yes`, joined by `redis-cli --cluster create … --cluster-replicas 1`).
/// Stopped when released.
public final class RedisClusterGroup: Sendable {
    public let servers: [RedisServer]

    /// Starts the nodes, creates the cluster and waits until every node reports `cluster_state:ok`
    /// and sees all the others; blocks (a few seconds). A node's bus port is its port + 10000:
    /// ports up to 22767 keep both below the ephemeral ports (``RedisServer/init(password:unixSocket:extraArguments:portLimit:)``).
    /// - Parameter replicas: replicas per master (0: three masters alone, as a benchmark on one
    ///   machine wants, where replicas would take their replication's CPU from the clients).
    public init(replicas: Int = 1) throws {
        let cli = try ExternalCommand.locate("redis-cli", package: "redis-tools")
        servers = try (0..<(3 * (1 + replicas))).map { _ in
            try RedisServer(extraArguments: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                             "--cluster-node-timeout", "2000"], portLimit: 22_768)
        }
        let create = try ExternalCommand.run(cli, ["--cluster", "create"] + servers.map { "127.0.0.1:\($0.port)" }
                                             + ["--cluster-replicas", String(replicas), "--cluster-yes"])
        guard create.status == 0 else { throw LocalStackError("redis-cli --cluster create failed: \(create.standardOutput)\(create.standardError)") }
        for server in servers {
            try Deadline.wait(every: .milliseconds(50), for: "cluster node \(server.port) reports the cluster ok") {
                let info = try RedisCommandLine.run(port: server.port, ["CLUSTER", "INFO"])
                return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:\(servers.count)")
            }
        }
    }

    /// Stops every node, side by side (a master may wait for its replica before it exits, up to
    /// ``RedisServer/stop()``'s 5 seconds), and waits for them; blocks. Releasing the group does
    /// the same, but on whichever thread drops it last, which may be after a test process ends.
    public func stop() {
        let servers = servers
        DispatchQueue.concurrentPerform(iterations: servers.count) { servers[$0].stop() }
    }

    /// The ports of the nodes that are masters now.
    public func masterPorts() throws -> [Int] {
        try servers.map(\.port).filter { try RedisCommandLine.run(port: $0, ["ROLE"]).hasPrefix("master") }
    }

    /// `CLUSTER FAILOVER` on a replica: it takes its master's slots, and the master becomes its
    /// replica. Waits until the replica answers `ROLE` as master and every node reports the cluster
    /// ok; returns the promoted node's port. Blocks.
    @discardableResult
    public func failover() throws -> Int {
        let masters = try masterPorts()
        guard let replica = servers.map(\.port).first(where: { !masters.contains($0) }) else {
            throw LocalStackError("the cluster has no replica to promote")
        }
        // A manual failover the master does not confirm within 5 seconds (a busy machine) is
        // abandoned by the replica: asked again, up to three times.
        var promoted = false
        for _ in 0..<3 where !promoted {
            let answer = try RedisCommandLine.run(port: replica, ["CLUSTER", "FAILOVER"])
            guard answer.contains("OK") else { throw LocalStackError("CLUSTER FAILOVER on \(replica) refused: \(answer)") }
            promoted = (try? Deadline.wait(.seconds(10), every: .milliseconds(50), for: "node \(replica) is promoted") {
                try RedisCommandLine.run(port: replica, ["ROLE"]).hasPrefix("master")
            }) != nil
        }
        guard promoted else { throw LocalStackError("node \(replica) was not promoted by three CLUSTER FAILOVER") }
        for server in servers {
            try Deadline.wait(every: .milliseconds(50), for: "cluster node \(server.port) reports the cluster ok after the failover") {
                try RedisCommandLine.run(port: server.port, ["CLUSTER", "INFO"]).contains("cluster_state:ok")
            }
        }
        return replica
    }

    /// Moves the slot of `key` from its master to another one, as `redis-cli --cluster reshard` does:
    /// marks it importing and migrating, moves the key with `MIGRATE`, runs `duringMigration` (the
    /// source now answers `ASK` for the key), then assigns the slot to the new master on every master
    /// (the source answers `MOVED` from then on). Blocks.
    public func migrateSlot(ofKey key: String, duringMigration: () throws -> Void) throws {
        let masters = try masterPorts()
        guard let source = try masters.first(where: { !(try RedisCommandLine.run(port: $0, ["GET", key]).contains("MOVED")) }),
              let destination = masters.first(where: { $0 != source }) else {
            throw LocalStackError("no master serves \(key), or there is no other master")
        }
        let slot = try RedisCommandLine.run(port: source, ["CLUSTER", "KEYSLOT", key]).trimmingCharacters(in: .whitespacesAndNewlines)
        let sourceID = try RedisCommandLine.run(port: source, ["CLUSTER", "MYID"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let destinationID = try RedisCommandLine.run(port: destination, ["CLUSTER", "MYID"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let steps: [(Int, [String])] = [
            (destination, ["CLUSTER", "SETSLOT", slot, "IMPORTING", sourceID]),
            (source, ["CLUSTER", "SETSLOT", slot, "MIGRATING", destinationID]),
            (source, ["MIGRATE", "127.0.0.1", String(destination), key, "0", "5000"]),
        ]
        for (port, command) in steps {
            let answer = try RedisCommandLine.run(port: port, command)
            guard answer.contains("OK") else { throw LocalStackError("\(command.joined(separator: " ")) on \(port) answered \(answer)") }
        }
        try duringMigration()
        for port in [destination, source] + masters.filter({ $0 != source && $0 != destination }) {
            _ = try RedisCommandLine.run(port: port, ["CLUSTER", "SETSLOT", slot, "NODE", destinationID])
        }
    }

    /// The number of keys matching `pattern` on all masters together (`KEYS` on each).
    public func countKeys(matching pattern: String) throws -> Int {
        try masterPorts().reduce(0) { count, port in
            count + (try RedisCommandLine.run(port: port, ["KEYS", pattern]).split(separator: "\n").count)
        }
    }
}
