import APNsCore
import Redis

/// Counts deliveries under a key over rolling windows, in Redis: a sorted set per key whose members
/// are deliveries (their `apns-id`) scored by when they were counted (Unix milliseconds on the
/// worker's wall clock). An entry is counted only when every one of its limits has room; the same
/// delivery counted again (a redelivery, a retry) is not counted twice.
///
/// Plain commands, no Lua (shared/DESIGN.md §9: a command through `EVAL` runs at about a quarter of
/// its plain rate): per entry `ZADD NX` (counts it, or finds it counted), a `ZCOUNT` of its longest
/// window and `PEXPIRE`, all entries in one pipelined round trip per batch; every command of an entry
/// names its one key, so any Redis Cluster slot. A shorter window is counted only when the longest
/// window's count is above its limit (else it cannot be over), in one more round trip for the
/// batch's few such entries (``shorterWindowCounts(_:added:longestCounts:)``). An entry is added
/// first and checked after, so two workers racing for the last place both see the other's entry:
/// neither overshoots (at worst both are over). An entry found over its limit is taken out again
/// (`ZREM`) in a further round trip, only when a batch has one.
///
/// What left the longest window is dropped (`ZREMRANGEBYSCORE`, before the `ZADD`) by one entry in
/// ``trimInterval`` only, chosen by its member (``trims(_:)``): a `ZCOUNT` counts by score, so older
/// members never change a count; the trim only bounds a set's size. An entry found counted that
/// did not trim is asked again with the trim first, in one more round trip (only when a batch has
/// one: a redelivery), so a member older than the longest window is counted anew, never taken for
/// the same delivery counted already.
///
/// Confined like its `RedisConnection`: one thread at a time.
public struct RollingWindows: RollingWindowStore {
    /// At most `limit` entries within `windowMilliseconds` before now.
    public struct Limit: Sendable, Equatable {
        public var limit: Int
        public var windowMilliseconds: Int64

        public init(limit: Int, windowMilliseconds: Int64) {
            self.limit = limit
            self.windowMilliseconds = windowMilliseconds
        }
    }

    /// One delivery to count under one key.
    public struct Entry: Sendable {
        public var key: String
        /// What is counted: the delivery's `apns-id`.
        public var member: String
        /// Unix milliseconds.
        public var now: Int64
        public let limits: [Limit]
        /// The longest of its limits' windows (ms), 0 without limits: made once, `count` reads it
        /// several times per entry.
        public let longestWindow: Int64

        public init(key: String, member: String, now: Int64, limits: [Limit]) {
            self.key = key
            self.member = member
            self.now = now
            self.limits = limits
            longestWindow = limits.reduce(0) { max($0, $1.windowMilliseconds) }
        }
    }

    public enum Decision: String, Sendable, Equatable {
        /// Every limit had room: counted.
        case counted
        /// Already counted within the window (the same delivery again): let it through, not counted twice.
        case alreadyCounted = "again"
        /// A limit is reached: not counted.
        case overLimit = "over"
    }

    /// `pushline:cap:{<app>:<subject>}:<category>`, where the subject is `user:<id>` or
    /// `device:<token>`: a frequency cap's count. The hash tag keeps one recipient's categories in one slot.
    /// Written into one `String` sized once: joined with `+`, its intermediate strings were 1.5 % of
    /// the worker's samples with caps on (docs/BENCHMARKS.md, issue 17, branch `policies3`).
    public static func frequencyCapKey(app: String, user: String?, token: DeviceToken, category: String) -> String {
        let subject = user ?? token.hex
        var key = String()
        key.reserveCapacity(30 + app.utf8.count + subject.utf8.count + category.utf8.count)
        key += "pushline:cap:{"
        key += app
        key += user == nil ? ":device:" : ":user:"
        key += subject
        key += "}:"
        key += category
        return key
    }

    /// `pushline:budget:background:{<token>}`: a device's background pushes.
    public static func backgroundBudgetKey(token: DeviceToken) -> String {
        "pushline:budget:background:{" + token.hex + "}"
    }

    /// `pushline:budget:liveactivity:{<token>}`: a Live Activity's priority-10 updates (its push token names it).
    public static func liveActivityBudgetKey(token: DeviceToken) -> String {
        "pushline:budget:liveactivity:{" + token.hex + "}"
    }

    private let connection: RedisConnection

    public init(connection: RedisConnection) {
        self.connection = connection
    }

    /// One entry in this many trims its key: a set holds its members still in the longest window,
    /// plus those counted since its last trim — as many as `trimInterval` on average — and expires
    /// a longest window after its last count.
    public static let trimInterval: UInt64 = 8

    /// Whether the entry counting `member` drops what left the longest window first: the same
    /// answer for a member in every worker and every run.
    public static func trims(_ member: String) -> Bool {
        stableHash(member) % trimInterval == 0
    }

    public func count(_ entries: [Entry]) throws(RedisError) -> [Decision] {
        try count(entries, trimmingEvery: false)
    }

    /// ``count(_:)``, every entry trimming its key first when `trimmingEvery`.
    private func count(_ entries: [Entry], trimmingEvery: Bool) throws(RedisError) -> [Decision] {
        guard !entries.isEmpty else { return [] }
        let trimming = entries.map { trimmingEvery || Self.trims($0.member) }
        var commands: [RedisCommand] = []
        commands.reserveCapacity(entries.count * 4 + 1)
        for (entry, trims) in zip(entries, trimming) {
            let longest = entry.longestWindow
            if trims {
                commands.append(Self.command("ZREMRANGEBYSCORE", entry.key) {
                    $0.append("-inf")
                    $0.append(Int(entry.now - longest))
                })
            }
            commands.append(Self.command("ZADD", entry.key) { $0.append("NX"); $0.append(Int(entry.now)); $0.append(entry.member) })
            commands.append(Self.countCommand(entry, window: longest))
            commands.append(Self.command("PEXPIRE", entry.key) { $0.append(Int(longest)) })
        }
        let replies = try connection.pipeline(commands)
        if let error = replies.lazy.compactMap(\.error).first { throw error }
        var added: [Bool] = []
        var longestCounts: [Int64] = []
        added.reserveCapacity(entries.count)
        longestCounts.reserveCapacity(entries.count)
        var next = 0
        for trims in trimming {
            next += trims ? 1 : 0
            added.append(replies[next].integer == 1)
            longestCounts.append(replies[next + 1].integer ?? 0)
            next += 3
        }
        let shorterCounts = try shorterWindowCounts(entries, added: added, longestCounts: longestCounts)
        var decisions: [Decision] = []
        decisions.reserveCapacity(entries.count)
        // Entries found over their limit stay in their sets until the `ZREM`s: the counts of the
        // later entries of this batch under the same key included them.
        var over: [Entry] = []
        // Entries found counted without a trim before: the member may be one older than the
        // longest window, which counts anew.
        var askAgain: [Int] = []
        for (index, (entry, trims)) in zip(entries, trimming).enumerated() {
            let longest = entry.longestWindow
            let overLimit = entry.limits.enumerated().contains { offset, limit in
                let from = entry.now - limit.windowMilliseconds + 1
                let count: Int64
                if limit.windowMilliseconds == longest {
                    count = longestCounts[index]
                } else if !shorterCounts.isEmpty, let asked = shorterCounts[index][offset] {
                    // Asked after the batch's `ZADD`s: without the batch's later entries.
                    let addedLater = entries.indices[(index + 1)...].count {
                        added[$0] && entries[$0].key == entry.key && entries[$0].now >= from
                    }
                    count = asked - Int64(addedLater)
                } else {
                    return false
                }
                let earlierOver = over.count { $0.key == entry.key && $0.now >= from }
                return count - Int64(earlierOver) > Int64(limit.limit)
            }
            if added[index] {
                decisions.append(overLimit ? .overLimit : .counted)
                if overLimit { over.append(entry) }
            } else if over.contains(where: { $0.key == entry.key && $0.member == entry.member }) {
                // Found counted earlier in this batch, and over.
                decisions.append(.overLimit)
            } else {
                let countedEarlier = zip(entries, decisions).contains {
                    $0.key == entry.key && $0.member == entry.member && $1 == .counted
                }
                if !trims && !countedEarlier { askAgain.append(index) }
                decisions.append(.alreadyCounted)
            }
        }
        if !over.isEmpty, let error = try connection.pipeline(over.map { RedisCommand("ZREM", $0.key, $0.member) }).lazy.compactMap(\.error).first {
            throw error
        }
        for (index, decision) in zip(askAgain, try count(askAgain.map { entries[$0] }, trimmingEvery: true)) {
            decisions[index] = decision
        }
        return decisions
    }

    /// The counts of the shorter windows that an added entry's longest window leaves in doubt: a
    /// window whose limit is below the longest window's count (one at or below the smallest such
    /// limit is at or below it in every window inside the longest). Asked in one more round trip,
    /// only for a batch that has one: per entry, per limit, nil where the longest count settles it;
    /// empty for a batch without one.
    private func shorterWindowCounts(_ entries: [Entry], added: [Bool], longestCounts: [Int64]) throws(RedisError) -> [[Int64?]] {
        var asked: [(entry: Int, limit: Int)] = []
        for (index, entry) in entries.enumerated() where added[index] {
            let longest = entry.longestWindow
            for (offset, limit) in entry.limits.enumerated()
            where limit.windowMilliseconds < longest && Int64(limit.limit) < longestCounts[index] {
                asked.append((index, offset))
            }
        }
        guard !asked.isEmpty else { return [] }
        var counts = entries.map { [Int64?](repeating: nil, count: $0.limits.count) }
        let replies = try connection.pipeline(asked.map { entry, limit in
            Self.countCommand(entries[entry], window: entries[entry].limits[limit].windowMilliseconds)
        })
        if let error = replies.lazy.compactMap(\.error).first { throw error }
        for ((index, offset), reply) in zip(asked, replies) {
            counts[index][offset] = reply.integer ?? 0
        }
        return counts
    }

    /// `ZCOUNT key <now - window + 1> +inf`: the entries counted in the window that ends at the entry's now.
    private static func countCommand(_ entry: Entry, window: Int64) -> RedisCommand {
        command("ZCOUNT", entry.key) { $0.append(Int(entry.now - window + 1)); $0.append("+inf") }
    }

    /// `ZRANGE key <start> +inf BYSCORE LIMIT 0 1 WITHSCORES` per key, in one round trip.
    public func earliest(_ keys: [String], countedSince start: Int64) throws(RedisError) -> [Int64?] {
        guard !keys.isEmpty else { return [] }
        let replies = try connection.pipeline(keys.map {
            Self.command("ZRANGE", $0) { command in
                command.append(Int(start))
                for argument in ["+inf", "BYSCORE", "LIMIT", "0", "1", "WITHSCORES"] { command.append(argument) }
            }
        })
        if let error = replies.lazy.compactMap(\.error).first { throw error }
        return replies.map { reply in
            reply.array.flatMap { $0.count == 2 ? $0[1].string : nil }.flatMap { Double($0) }.map { Int64($0) }
        }
    }

    /// `name key …`, the rest appended by `arguments`: integers in decimal without a `String`, the
    /// buffers sized once (room for the name, the key and 60 bytes).
    private static func command(_ name: String, _ key: String, _ arguments: (inout RedisCommand) -> Void) -> RedisCommand {
        var command = RedisCommand(reservingBytes: name.utf8.count + key.utf8.count + 60, arguments: 6)
        command.append(name)
        command.append(key)
        arguments(&command)
        return command
    }
}
