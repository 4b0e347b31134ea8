import Pipeline
import Redis
import Testing

/// The token bucket of a throttle: its arithmetic step by step, and the same rules kept by the
/// shared bucket in Redis (one server and Cluster) and the in-memory one.
@Suite("Throttle token bucket")
struct TokenBucketTests {
    @Test("a new bucket is full: the burst goes at once, the rest waits for the refill")
    func startsFull() {
        var bucket = TokenBucket(rate: 10, burst: 5, now: 0)
        #expect(bucket.take(8, now: 0) == ThrottleGrant(granted: 5, retryAfterMilliseconds: 100))
        #expect(bucket.take(1, now: 0) == ThrottleGrant(granted: 0, retryAfterMilliseconds: 100))
    }

    @Test("it refills at the rate, never over the burst")
    func refillsAtRate() {
        var bucket = TokenBucket(rate: 10, burst: 5, now: 0)
        _ = bucket.take(5, now: 0)
        #expect(bucket.take(10, now: 250).granted == 2, "250 ms at 10/s: 2.5 tokens")
        #expect(bucket.take(10, now: 300).granted == 1, "the half token left plus 0.5")
        #expect(bucket.take(10, now: 60_000).granted == 5, "a minute later: only the burst")
    }

    @Test("over a long run it grants no more than rate × elapsed + burst")
    func holdsTheRate() {
        var bucket = TokenBucket(rate: 50, burst: 10, now: 0)
        var granted = 0
        for now in stride(from: Int64(0), through: 10_000, by: 7) { granted += bucket.take(100, now: now).granted }
        #expect(granted <= 50 * 10 + 10)
        #expect(granted >= 50 * 10 - 1, "nothing lost to asking often")
    }

    @Test("a clock that goes back adds nothing")
    func clockBackwards() {
        var bucket = TokenBucket(rate: 10, burst: 1, now: 1_000)
        #expect(bucket.take(1, now: 1_000).granted == 1)
        #expect(bucket.take(1, now: 500).granted == 0)
    }
}

@Suite("Throttle stores")
struct ThrottleStoreTests {
    @Test("the burst is granted at once, the rest refused with a wait; another bucket is independent",
          arguments: StoreBackend.allCases)
    func burstThenWait(backend: StoreBackend) async throws {
        try await withStores(backend) { stores in
            // One token every 100 s: no token comes back between the takes, however slow the machine.
            let throttle = stores.throttle()
            let grants = try throttle.take([ThrottleRequest(bucket: "campaign:spring", rate: 0.01, burst: 3, wanted: 5),
                                            ThrottleRequest(bucket: "app:com.example", rate: 0.01, burst: 10, wanted: 4)])
            #expect(grants[0].granted == 3)
            #expect(grants[0].retryAfterMilliseconds > 0 && grants[0].retryAfterMilliseconds <= 100_000, "at most one token's time")
            #expect(grants[1] == ThrottleGrant(granted: 4, retryAfterMilliseconds: 0))
            let again = try throttle.take([ThrottleRequest(bucket: "campaign:spring", rate: 0.01, burst: 3, wanted: 5)])
            #expect(again[0].granted == 0, "the bucket is empty for about 100 s")
        }
    }

    @Test("a bucket lives in Redis: two stores over it draw from the same tokens", arguments: [StoreBackend.redis, .redisCluster])
    func sharedAcrossClients(backend: StoreBackend) async throws {
        try await withStores(backend) { stores in
            // One token every 100 s: none comes back between the two takes.
            let request = ThrottleRequest(bucket: "pool:bulk", rate: 0.01, burst: 10, wanted: 6)
            let first = try stores.throttle().take([request])[0].granted
            let second = try stores.throttle().take([request])[0].granted
            #expect(first == 6)
            #expect(second == 4)
        }
    }

    @Test("the bucket's key carries a hash tag, so one script call touches one slot")
    func keyHasHashTag() {
        #expect(RedisThrottle.key(of: "campaign:spring") == "pushline:throttle:{campaign:spring}")
    }
}
