import APNsCore
import Foundation
import Pipeline
import Redis
import Testing

private func key(_ index: Int) throws -> DeliveryKey {
    DeliveryKey(intentID: "owned-\(index)", deviceToken: try DeviceToken(String(repeating: String(format: "%02x", index), count: 32)))
}

private let source = SourcePosition(topic: "pushline.intents", partition: 0, offset: 7)

private func claims(_ store: any ClaimStore, _ keys: [DeliveryKey]) throws(RedisError) -> [IdempotencyStore.ClaimResult] {
    try store.claim(keys.map { ClaimRequest($0, source: source) })
}

/// Who holds a `pending` claim, whether that worker still lives, and what becomes of the claims a
/// dead one left (docs/pipeline-stores.md, "Owners").
@Suite("Claim owners: liveness, renewal and replacement")
struct ClaimOwnershipTests {
    @Test("a pending claim names its owner, who lives only while its liveness key is kept (Redis)")
    func ownerLivesWhileKeptAlive() async throws {
        let (named, beforeKeepAlive, whileAlive, afterExpiry) = try await withStores(.redis) { stores in
            let a = stores.claims(owner: "worker-a")
            let b = stores.claims(owner: "worker-b")
            _ = try claims(a, [try key(1)])
            let named = try claims(b, [try key(1)])
            let beforeKeepAlive = try b.liveOwners(among: ["worker-a"])
            try a.keepAlive(holding: [], livenessMilliseconds: 1000)
            let whileAlive = try b.liveOwners(among: ["worker-a", "worker-c"])
            Thread.sleep(forTimeInterval: 1.3)
            return (named, beforeKeepAlive, whileAlive, try b.liveOwners(among: ["worker-a"]))
        }
        #expect(named == [.pending(owner: "worker-a")])
        #expect(beforeKeepAlive.isEmpty)
        #expect(whileAlive == ["worker-a"])
        #expect(afterExpiry.isEmpty, "the liveness key expires when it is not renewed")
    }

    @Test("keeping alive renews the owner's own pending claims and no one else's (Redis)")
    func keepAliveRenewsOwnClaims() async throws {
        let results = try await withStores(.redis) { stores in
            var configuration = IdempotencyStore.Configuration()
            configuration.pendingMilliseconds = 1000
            let a = stores.claims(configuration, owner: "worker-a")
            let b = stores.claims(configuration, owner: "worker-b")
            let observer = stores.claims(configuration, owner: "worker-c")
            _ = try claims(a, [try key(2)])
            _ = try claims(b, [try key(3)])
            // One and a half times the pending TTL, renewed every tenth of it (a stall of up to
            // 0.9 s between renewals still renews in time).
            for _ in 0..<15 {
                try a.keepAlive(holding: [try key(2), try key(3)], livenessMilliseconds: 1000)
                Thread.sleep(forTimeInterval: 0.1)
            }
            return try claims(observer, [try key(2), try key(3)])
        }
        #expect(results == [.pending(owner: "worker-a"), .claimed])
    }

    @Test("a kept-alive claim outlives its pending TTL; one not kept alive expires", arguments: StoreBackend.allCases)
    func keepAliveOutlivesTheTTL(backend: StoreBackend) async throws {
        let results = try await withStores(backend) { stores in
            var configuration = IdempotencyStore.Configuration()
            configuration.pendingMilliseconds = 1000
            let store = stores.claims(configuration, owner: "worker-a")
            _ = try claims(store, [try key(7), try key(8)])
            // As above: 1.5 s, renewed every 0.1 s.
            for _ in 0..<15 {
                try store.keepAlive(holding: [try key(7)], livenessMilliseconds: 1000)
                Thread.sleep(forTimeInterval: 0.1)
            }
            return try claims(store, [try key(7), try key(8)])
        }
        #expect(results == [.heldByOwner, .claimed])
    }

    @Test("a dead holder's claim is taken over or settled only while it still holds that holder's pending (Redis)")
    func replacementComparesTheHolder() async throws {
        let (replaced, after) = try await withStores(.redis) { stores in
            let dead = stores.claims(owner: "worker-dead")
            let heir = stores.claims(owner: "worker-heir")
            let observer = stores.claims(owner: "worker-observer")
            let keys = try (4...6).map(key)
            _ = try claims(dead, keys)
            try dead.markSent([keys[2]])
            let unknown = SettledOutcome(source: source, status: .unknown, completedAt: 1_764_500_000_000, reason: "UncertainAfterCrash")
            let replaced = try heir.replace([
                ClaimReplacement(keys[0], holder: "worker-dead", replacement: .takeOver),
                ClaimReplacement(keys[1], holder: "worker-dead", replacement: .settle(unknown)),
                ClaimReplacement(keys[2], holder: "worker-dead", replacement: .takeOver),
            ])
            return (replaced, try claims(observer, keys))
        }
        #expect(replaced == [true, true, false], "the settled claim no longer names the dead holder")
        #expect(after[0] == .pending(owner: "worker-heir"))
        guard case .decided(let kept) = after[1] else {
            Issue.record("expected the unknown outcome kept for the same message, got \(after[1])")
            return
        }
        #expect(kept.status == .unknown && kept.reason == "UncertainAfterCrash")
        #expect(after[2] == .sent)
    }

    @Test("in memory, a claim is replaced only while it holds the named holder's pending")
    func inMemoryReplacement() async throws {
        let (replaced, after) = try await withStores(.inMemory) { stores in
            let store = stores.claims(owner: "worker-a")
            let keys = try (9...10).map(key)
            _ = try claims(store, keys)
            let unknown = SettledOutcome(source: source, status: .unknown, completedAt: 1_764_500_000_000, reason: "UncertainAfterCrash")
            let replaced = try store.replace([
                ClaimReplacement(keys[0], holder: "worker-a", replacement: .settle(unknown)),
                ClaimReplacement(keys[1], holder: "worker-b", replacement: .settle(unknown)),
            ])
            return (replaced, try claims(store, keys))
        }
        #expect(replaced == [true, false])
        #expect(after[0] == .decided(SettledOutcome(source: source, status: .unknown, completedAt: 1_764_500_000_000,
                                                    reason: "UncertainAfterCrash")))
        #expect(after[1] == .heldByOwner)
    }
}
