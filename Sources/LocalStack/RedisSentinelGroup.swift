import Foundation

/// A master, a replica of it and three sentinels (`redis-server --sentinel`) watching it under
/// ``masterName``, on loopback, for tests of Sentinel mode. Stopped when released.
public final class RedisSentinelGroup: Sendable {
    public let masterName = "pushline"
    /// The servers: the first starts as master, the second as its replica.
    public let servers: [RedisServer]
    /// The sentinels' ports on 127.0.0.1.
    public let sentinelPorts: [Int]
    private let sentinels: [ServerProcess]
    private let directory: URL

    /// Starts the servers, waits until the replica is in sync, starts the sentinels and waits until
    /// each knows the master and the other sentinels; blocks (about a few seconds).
    public init() throws {
        let executable = try ExternalCommand.locate("redis-server", package: "redis-server")
        let master = try RedisServer()
        let replica = try RedisServer(extraArguments: ["--replicaof", "127.0.0.1", String(master.port)])
        servers = [master, replica]
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-sentinels-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Deadline.wait(every: .milliseconds(50), for: "the replica of port \(master.port) is in sync") {
            try RedisCommandLine.run(port: replica.port, ["INFO", "replication"]).contains("master_link_status:up")
        }
        var ports: [Int] = []
        var processes: [ServerProcess] = []
        for index in 0..<3 {
            let port = try FreePort.next()
            let file = directory.appendingPathComponent("sentinel-\(index).conf")
            try """
                port \(port)
                bind 127.0.0.1
                dir \(directory.path)
                sentinel monitor \(masterName) 127.0.0.1 \(master.port) 2
                sentinel down-after-milliseconds \(masterName) 1000
                sentinel failover-timeout \(masterName) 10000
                sentinel parallel-syncs \(masterName) 1

                """.write(to: file, atomically: true, encoding: .utf8)
            processes.append(try ServerProcess(executable, [file.path, "--sentinel", "--logfile", ""]))
            ports.append(port)
        }
        sentinels = processes
        sentinelPorts = ports
        for port in ports {
            try Deadline.wait(every: .milliseconds(50), for: "sentinel \(port) knows the replica and two other sentinels") {
                // Refused until the sentinel listens.
                guard let state = try? RedisCommandLine.run(port: port, ["SENTINEL", "MASTER", masterName]) else { return false }
                let fields = state.split(separator: "\n").map(String.init)
                func field(_ name: String) -> String? { fields.firstIndex(of: name).map { fields[$0 + 1] } }
                return field("num-slaves") == "1" && field("num-other-sentinels") == "2"
            }
        }
    }

    deinit {
        for sentinel in sentinels { _ = sentinel.stop(graceMilliseconds: 2000) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The port of the server the sentinels name as master now.
    public func masterPort() throws -> Int {
        let reply = try RedisCommandLine.run(port: sentinelPorts[0], ["SENTINEL", "get-master-addr-by-name", masterName])
        guard let port = reply.split(separator: "\n").last.flatMap({ Int($0) }) else {
            throw LocalStackError("sentinel \(sentinelPorts[0]) names no master: \(reply)")
        }
        return port
    }

    /// `SENTINEL FAILOVER`, then waits until every sentinel names the other server, it answers
    /// `ROLE` as master and the old master answers as its replica (until Sentinel reconfigures it,
    /// the old master still takes writes, which its resync then discards: Redis's replication is
    /// asynchronous); blocks.
    public func failover() throws {
        let before = try masterPort()
        let answer = try RedisCommandLine.run(port: sentinelPorts[0], ["SENTINEL", "FAILOVER", masterName])
        guard answer.contains("OK") else { throw LocalStackError("SENTINEL FAILOVER refused: \(answer)") }
        try Deadline.wait(every: .milliseconds(50), for: "the sentinels promote the replica of \(before)") {
            let named = try sentinelPorts.map { port in
                try RedisCommandLine.run(port: port, ["SENTINEL", "get-master-addr-by-name", masterName]).split(separator: "\n").last.flatMap { Int($0) }
            }
            guard let promoted = named.first ?? nil, promoted != before, named.allSatisfy({ $0 == promoted }) else { return false }
            return try RedisCommandLine.run(port: promoted, ["ROLE"]).hasPrefix("master")
                && RedisCommandLine.run(port: before, ["ROLE"]).hasPrefix("slave")
        }
    }
}
