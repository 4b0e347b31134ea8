import APNsCore
import CLI
import Foundation
import Pipeline
import Redis
import Runtime

/// `pushline-dev bench deferred-store`: how fast the deferred store (quiet hours) keeps and releases
/// entries, against the claim path's plain pipelined `SET … NX PX` on the same connection and server.
enum BenchDeferredStoreCommand: Command {
    static let name = "bench deferred-store"
    static let summary = "deferred store (quiet hours): entries kept and released per second vs pipelined SET NX PX"
    static let help = """
        Usage: pushline-dev bench deferred-store [--entries N] [--body BYTES] [--rounds R] [--cluster]

        Starts a redis-server (Debian package redis-server) on a free port and, R times:
          - keeps N entries of BYTES bytes, all due at one instant, in batches of 1000 (DeferredStore.keep:
            HSET + ZADD per entry, one round trip per batch);
          - releases them all at that instant: DeferredStore.takeDue (a leased take: one Lua script per
            shard leasing up to 1000 ids, then an HMGET per shard of their bodies; 16 shards) then
            complete (one Lua script per shard: HDEL and ZREM of each entry still under its lease),
            until none is left;
          - settles N idempotency claims `deferred` (as quiet hours leave them), then takes them over as
            releases do (IdempotencyStore.claim with releasing requests: one Lua script per 1000, on one
            redis-server; one per key on a cluster), in batches of 1000;
          - sends N "SET key pending NX PX 60000" in pipelines of 1000 (the claim path's command).
        Prints the median rates and their ratios to the SET rate. With --cluster, against a Redis
        Cluster of three masters and three replicas. This is the store alone, not the worker's
        release path (`bench e2e --workloads tokens,deferred`, docs/policies.md). Progress goes to stderr.

        Options:
          --entries N     entries per round (default 100000)
          --body BYTES    bytes per entry's body, about a rendered request (default 400)
          --rounds R      rounds (default 5)
          --cluster       against a 3-master Redis Cluster instead of one redis-server
          -h, --help      show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--entries", "--body", "--rounds"], flagOptions: ["--cluster"])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let count = try arguments.positiveInteger("--entries", default: 100_000)
        let bodySize = try arguments.positiveInteger("--body", default: 400)
        let rounds = try arguments.positiveInteger("--rounds", default: 5)
        let target = try BenchRedisTarget(clusterFlag: arguments, progress: progress)
        let redis = try RedisConnection(configuration: target.configuration)
        let store = DeferredStore(connection: redis, pipeline: "bench")
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: bodySize)
        let claims = IdempotencyStore(connection: redis, owner: "bench")
        let deferredClaims = try (0..<count).map { index in
            let key = DeliveryKey(intentID: "delivery-\(index)", deviceToken: try DeviceToken(String(repeating: "07", count: 32)))
            let position = SourcePosition(topic: "pushline.intents", partition: 0, offset: Int64(index))
            return (SettledClaim(key, outcome: SettledOutcome(source: position, status: .deferred, completedAt: 1_000, reason: "QuietHours", releaseAt: 2_000)),
                    ClaimRequest(key, source: SourcePosition(topic: "pushline.intents", partition: 1, offset: Int64(index)), releasing: true))
        }
        var kept: [Double] = [], released: [Double] = [], releaseClaims: [Double] = [], reference: [Double] = []
        for round in 1...rounds {
            try target.flush()
            let keepTime = try MonotonicClock.system.measure {
                for chunk in chunks(of: 0..<count) {
                    try store.keep(chunk.map { DeferredEntry(id: "delivery-\($0)", releaseAt: 1_000, body: body) })
                }
            }
            var taken = 0
            let releaseTime = try MonotonicClock.system.measure {
                while true {
                    let due = try store.takeDue(now: 1_000)
                    if due.isEmpty { break }
                    taken += due.count
                    try store.complete(due)
                }
            }
            guard taken == count, try store.count() == 0 else {
                throw UsageError(message: "released \(taken) of \(count) entries; \(try store.count()) left in the store")
            }
            kept.append(Double(count) / seconds(keepTime))
            released.append(Double(count) / seconds(releaseTime))
            try target.flush()
            releaseClaims.append(Double(count) / seconds(try takeOver(deferredClaims, in: claims)))
            try target.flush()
            reference.append(try BenchRedisCommand.clientRate(redis, depth: 1000, requests: count))
            progress("round \(round)/\(rounds): kept \(Int(kept.last!))/s, released \(Int(released.last!))/s, "
                     + "release claims \(Int(releaseClaims.last!))/s, SET NX PX \(Int(reference.last!))/s")
        }
        let median = BenchRedisCommand.median
        print("deferred store: \(count) entries of \(bodySize) bytes, \(rounds) rounds, one connection"
              + (target.cluster == nil ? "" : ", Redis Cluster of 3 masters"))
        print("kept:        \(Int(median(kept))) entries/s (median), \(ratio(kept, reference)) of SET NX PX")
        print("released:    \(Int(median(released))) entries/s (median; take + complete), \(ratio(released, reference)) of SET NX PX")
        print("release claims: \(Int(median(releaseClaims))) claims/s (median; deferred claims taken over), \(ratio(releaseClaims, reference)) of SET NX PX")
        print("SET NX PX:   \(Int(median(reference))) ops/s (median, pipelines of 1000)")
        return 0
    }

    /// Settles every claim `deferred`, then times taking them all over as releases, 1,000 per
    /// call; throws unless each was taken over.
    private static func takeOver(_ claims: [(deferred: SettledClaim, release: ClaimRequest)], in store: IdempotencyStore) throws -> Duration {
        for chunk in chunks(of: claims.indices) {
            try store.settle(claims[chunk].map(\.deferred))
        }
        var results: [IdempotencyStore.ClaimResult] = []
        let time = try MonotonicClock.system.measure {
            for chunk in chunks(of: claims.indices) {
                results += try store.claim(claims[chunk].map(\.release))
            }
        }
        let takenOver = results.count { $0 == .claimed }
        guard takenOver == claims.count else {
            throw UsageError(message: "took over \(takenOver) of \(claims.count) deferred claims")
        }
        return time
    }

    /// `range` in consecutive ranges of at most 1,000: the size of every call the bench makes.
    private static func chunks(of range: Range<Int>) -> [Range<Int>] {
        stride(from: range.lowerBound, to: range.upperBound, by: 1000).map { $0..<min($0 + 1000, range.upperBound) }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The median of the per-round ratios, two decimals.
    private static func ratio(_ values: [Double], _ reference: [Double]) -> String {
        String(format: "%.2f", BenchRedisCommand.median(zip(values, reference).map { $0 / $1 }))
    }

    private static func progress(_ message: String) {
        FileHandle.standardError.write(Data("bench deferred-store: \(message)\n".utf8))
    }
}
