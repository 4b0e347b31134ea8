import Redis

/// ``RollingWindows/count(_:)`` on one server (or a Sentinel's master): the entries of a batch in
/// one script call, which runs each entry's plain commands and answers a byte per entry.
///
/// A departure from shared/DESIGN.md §9 ("keep Lua off the common path"), measured in
/// docs/BENCHMARKS.md (issue 17, `policies2`): §9's cost is the script call's own, paid once per
/// batch here instead of once per delivery, while Redis no longer parses, dispatches and answers
/// 2,500 commands per batch of 500, nor the worker encodes and decodes them. A Redis Cluster keeps
/// the plain commands: a script's keys must share a slot, and a batch's recipients do not.
extension RollingWindows {
    /// At most this many entries per script call: the script holds Redis while it runs (about
    /// five commands' time per entry).
    static let entriesPerScriptCall = 1_000

    /// `ARGV`: the number of limit sets, then each set (its number of limits, then each limit's
    /// window in ms and limit), then per entry (`KEYS[i]`) its member, its now (Unix ms) and its
    /// set's number. Per entry the plain path's commands — `ZREMRANGEBYSCORE` what left the
    /// longest window, `ZADD NX`, a `ZCOUNT` per limit, `PEXPIRE` — and a `ZREM` at once for an
    /// entry over a limit, so the entries after it under the same key do not count it. Returns a
    /// byte per entry: `c` counted, `a` already counted, `o` over a limit.
    static let countScript = RedisScript("""
        local sets, at = {}, 2
        for set = 1, tonumber(ARGV[1]) do
          local n, limits, longest = tonumber(ARGV[at]), {}, 0
          for limit = 1, n do
            local window = tonumber(ARGV[at + 2 * limit - 1])
            limits[limit] = {window, tonumber(ARGV[at + 2 * limit])}
            if window > longest then longest = window end
          end
          sets[set] = {limits, longest}
          at = at + 1 + 2 * n
        end
        local decisions = {}
        for index, key in ipairs(KEYS) do
          local member, now, set = ARGV[at], tonumber(ARGV[at + 1]), sets[tonumber(ARGV[at + 2])]
          at = at + 3
          redis.call('ZREMRANGEBYSCORE', key, '-inf', now - set[2])
          if redis.call('ZADD', key, 'NX', now, member) == 0 then
            decisions[index] = 'a'
          else
            decisions[index] = 'c'
            for _, limit in ipairs(set[1]) do
              if redis.call('ZCOUNT', key, now - limit[1] + 1, '+inf') > limit[2] then
                redis.call('ZREM', key, member)
                decisions[index] = 'o'
                break
              end
            end
          end
          redis.call('PEXPIRE', key, set[2])
        end
        return table.concat(decisions)
        """)

    /// The entries counted by ``countScript``, up to ``entriesPerScriptCall`` per call, all calls
    /// in one round trip.
    func countByScript(_ entries: [Entry]) throws(RedisError) -> [Decision] {
        let starts = stride(from: 0, to: entries.count, by: Self.entriesPerScriptCall)
        let replies = try connection.pipeline(starts.map { Self.scriptCall(entries[$0..<min($0 + Self.entriesPerScriptCall, entries.count)]) })
        var decisions: [Decision] = []
        decisions.reserveCapacity(entries.count)
        for (start, reply) in zip(starts, replies) {
            if case .error(let error) = reply { throw error }
            // Were a byte missing, its entry would read as over its limit: never counted twice.
            let bytes = reply.bytes ?? []
            for index in 0..<(min(start + Self.entriesPerScriptCall, entries.count) - start) {
                switch index < bytes.count ? bytes[index] : 0 {
                case UInt8(ascii: "c"): decisions.append(.counted)
                case UInt8(ascii: "a"): decisions.append(.alreadyCounted)
                default: decisions.append(.overLimit)
                }
            }
        }
        return decisions
    }

    /// `EVALSHA` of ``countScript`` for `entries`: each distinct set of limits once.
    private static func scriptCall(_ entries: ArraySlice<Entry>) -> RedisCommand {
        var sets: [[Limit]] = []
        var setArguments: [String] = []
        var entryArguments: [String] = []
        entryArguments.reserveCapacity(3 * entries.count)
        for entry in entries {
            let set: Int
            if let known = sets.firstIndex(of: entry.limits) {
                set = known
            } else {
                set = sets.count
                sets.append(entry.limits)
                setArguments.append(String(entry.limits.count))
                for limit in entry.limits {
                    setArguments.append(String(limit.windowMilliseconds))
                    setArguments.append(String(limit.limit))
                }
            }
            entryArguments.append(entry.member)
            entryArguments.append(String(entry.now))
            entryArguments.append(String(set + 1))
        }
        return .evalSHA(countScript, keys: entries.map(\.key), arguments: [String(sets.count)] + setArguments + entryArguments)
    }
}
