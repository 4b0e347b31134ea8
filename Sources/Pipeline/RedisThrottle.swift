import Redis

/// The throttles' token buckets in Redis, shared by every worker that throttles the same app,
/// campaign or pool: a hash (`tokens`, `at`) per bucket under `pushline:throttle:{<bucket>}`,
/// updated by one Lua script per bucket and batch, with Redis's own clock (`TIME`), so the workers'
/// clocks do not matter. One key per call, hash-tagged, so it works in Redis Cluster. The arithmetic
/// is ``TokenBucket``'s. A bucket left alone expires once it would be full again.
///
/// Confined like its `RedisConnection`: one thread at a time.
public struct RedisThrottle: ThrottleStore {
    /// KEYS[1] the bucket; ARGV rate (tokens/s), burst, wanted. Returns {granted, retry after ms}.
    static let takeTokens = RedisScript("""
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        local rate = tonumber(ARGV[1])
        local burst = tonumber(ARGV[2])
        local wanted = tonumber(ARGV[3])
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
        local tokens = tonumber(state[1]) or burst
        local at = tonumber(state[2]) or now
        if now > at then
          tokens = math.min(burst, tokens + (now - at) * rate / 1000)
          at = now
        end
        local granted = math.min(wanted, math.floor(tokens))
        tokens = tokens - granted
        redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', at)
        redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
        local retry = 0
        if granted < wanted then retry = math.max(1, math.ceil((1 - tokens) * 1000 / rate)) end
        return {granted, retry}
        """)

    private let connection: RedisConnection

    public init(connection: RedisConnection) {
        self.connection = connection
    }

    /// `pushline:throttle:{<bucket>}`.
    public static func key(of bucket: String) -> String {
        "pushline:throttle:{" + bucket + "}"
    }

    public func take(_ requests: [ThrottleRequest]) throws(RedisError) -> [ThrottleGrant] {
        guard !requests.isEmpty else { return [] }
        let commands = requests.map { request in
            RedisCommand.evalSHA(Self.takeTokens, keys: [Self.key(of: request.bucket)],
                                 arguments: [String(request.rate), String(max(1, request.burst)), String(request.wanted)])
        }
        return try connection.pipeline(commands).map { (reply) throws(RedisError) -> ThrottleGrant in
            if case .error(let error) = reply { throw error }
            // The script always answers two integers; anything else grants nothing and asks again in a second.
            guard case .array(let values) = reply, values.count == 2, let granted = values[0].integer,
                  let retry = values[1].integer else { return ThrottleGrant(granted: 0, retryAfterMilliseconds: 1_000) }
            return ThrottleGrant(granted: Int(granted), retryAfterMilliseconds: Int(retry))
        }
    }
}
