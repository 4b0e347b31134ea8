import CLI
import Foundation
import LocalStack
import Redis
import Runtime

/// `pushline-dev bench redis`: pipelined `SET key value NX PX 60000` per second through Pushline's Redis
/// client, against `redis-benchmark` sending the same command with the same pipeline depth and
/// request count, both against one `redis-server` started for the run.
enum BenchRedisCommand: Command {
    static let name = "bench redis"
    static let summary = "pipelined SET NX PX per second: Pushline's Redis client vs redis-benchmark"
    static let help = """
        Usage: pushline-dev bench redis [--depth N] [--requests COUNT] [--rounds R] [--cluster]

        Starts a redis-server (Debian package redis-server) on a free port and, R times in turn,
        sends COUNT "SET key:<12 digits> pending NX PX 60000" commands in pipelines of N:
          - with redis-benchmark (Debian package redis-tools), one connection:
            redis-benchmark -c 1 -P N -n COUNT -r 1000000000 --csv SET key:__rand_int__ pending NX PX 60000
          - with Pushline's RedisConnection, one connection, building every command.
        With --cluster, both run against a Redis Cluster of three masters and three replicas started
        for the run (redis-benchmark with --cluster; Pushline with redis.mode: cluster, each pipeline
        split per master; redis-benchmark's keys are key:{tag}:__rand_int__, its clients one per
        master). The database is flushed before each pass. Prints the median ops/s of each and the median of
        the per-round ratios (goal: at least 0.7); pairing each pass with the one before it keeps the
        load of a shared machine from favouring either side. Progress goes to stderr.

        Options:
          --depth N          commands per pipeline (default 64)
          --requests COUNT   commands per pass (default 300000)
          --rounds R         passes of each (default 9)
          --cluster          against a 3-master Redis Cluster instead of one redis-server
          -h, --help         show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--depth", "--requests", "--rounds"], flagOptions: ["--cluster"])
    static let goal = 0.7

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let depth = try arguments.positiveInteger("--depth", default: 64)
        let requests = try arguments.positiveInteger("--requests", default: 300_000)
        let rounds = try arguments.positiveInteger("--rounds", default: 9)
        let redisBenchmark = try ExternalCommand.locate("redis-benchmark", package: "redis-tools")
        let target = try BenchRedisTarget(clusterFlag: arguments, progress: progress)
        let redis = try RedisConnection(configuration: target.configuration)
        var reference: [Double] = []
        var pushline: [Double] = []
        for round in 1...rounds {
            try target.flush()
            reference.append(try redisBenchmarkRate(redisBenchmark, port: target.port, cluster: target.cluster != nil, depth: depth, requests: requests))
            progress("round \(round)/\(rounds): redis-benchmark \(Int(reference.last!)) ops/s")
            try target.flush()
            pushline.append(try clientRate(redis, depth: depth, requests: requests))
            progress("round \(round)/\(rounds): pushline        \(Int(pushline.last!)) ops/s")
        }
        let ratio = median(zip(pushline, reference).map { $0 / $1 })
        print("SET key value NX PX 60000, pipeline depth \(depth), \(requests) requests, \(rounds) rounds, one connection each"
              + (target.cluster == nil ? "" : " (per master), Redis Cluster of 3 masters"))
        print("redis-benchmark: \(Int(median(reference))) ops/s (median)")
        print("pushline Redis:  \(Int(median(pushline))) ops/s (median)")
        print("ratio: \(String(format: "%.2f", ratio)) (median of per-round ratios; goal ≥ \(goal): \(ratio >= goal ? "met" : "not met"))")
        return 0
    }

    /// Runs redis-benchmark and reads the requests per second from its CSV line.
    private static func redisBenchmarkRate(_ executable: String, port: Int, cluster: Bool, depth: Int, requests: Int) throws -> Double {
        let result = try ExternalCommand.run(executable, [
            // In cluster mode, one client per master (redis-benchmark aborts with fewer).
            "-h", "127.0.0.1", "-p", String(port), "-c", cluster ? "3" : "1", "-P", String(depth), "-n", String(requests),
            "-r", "1000000000", "--csv"]
            // In cluster mode redis-benchmark replaces `{tag}` with a tag of each client's node.
            + (cluster ? ["--cluster", "SET", "key:{tag}:__rand_int__"] : ["SET", "key:__rand_int__"]) + ["pending", "NX", "PX", "60000",
        ])
        // "test","rps",…  then  "SET key:__rand_int__ pending NX PX 60000","273224.03",…
        let fields = result.standardOutput.split(separator: "\n").last?.split(separator: ",") ?? []
        guard result.status == 0, fields.count > 1, let rate = Double(fields[1].trimmingCharacters(in: ["\""])) else {
            throw UsageError(message: "redis-benchmark failed (status \(result.status)): \(result.standardError)\(result.standardOutput)")
        }
        return rate
    }

    /// Sends `requests` commands in pipelines of `depth`, building each command as a caller would.
    static func clientRate(_ redis: RedisConnection, depth: Int, requests: Int) throws -> Double {
        var batch: [RedisCommand] = []
        batch.reserveCapacity(depth)
        var key = Array("key:000000000000".utf8)
        let start = MonotonicClock.now
        var sent = 0
        while sent < requests {
            batch.removeAll(keepingCapacity: true)
            for _ in 0..<min(depth, requests - sent) {
                increment(&key)
                var command = RedisCommand("SET")
                command.append(bytes: key)
                command.append("pending")
                command.append("NX")
                command.append("PX")
                command.append(60_000)
                batch.append(command)
            }
            for reply in try redis.pipeline(batch) where reply != .status("OK") && reply != .null {
                throw UsageError(message: "unexpected reply to SET NX PX: \(reply)")
            }
            sent += batch.count
        }
        let elapsed = start.duration(to: .now)
        return Double(requests) / elapsed.inSeconds
    }

    /// Adds one to the decimal number at the end of `key`, in place.
    private static func increment(_ key: inout [UInt8]) {
        var index = key.count - 1
        while key[index] == UInt8(ascii: "9") {
            key[index] = UInt8(ascii: "0")
            index -= 1
        }
        key[index] += 1
    }

    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    private static func progress(_ message: String) {
        FileHandle.standardError.write(Data("bench redis: \(message)\n".utf8))
    }
}
