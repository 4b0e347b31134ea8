import APNsCore
import Pipeline
import Redis
import Runtime
import Testing

private func token(_ byte: Int) throws -> DeviceToken {
    try DeviceToken(String(repeating: String(format: "%02x", byte), count: 32))
}

/// Where a test's intents are read: `pushline.intents`, `partition`, `offset`.
private func position(_ offset: Int64, partition: Int32 = 0) -> SourcePosition {
    SourcePosition(topic: "pushline.intents", partition: partition, offset: offset)
}

extension ClaimStore {
    /// Claims `deliveries` as read from offset 0 of partition 0.
    fileprivate func claim(_ deliveries: [DeliveryKey]) throws(RedisError) -> [IdempotencyStore.ClaimResult] {
        try claim(deliveries.map { ClaimRequest($0, source: position(0)) })
    }
}

@Suite("Idempotency claims")
struct IdempotencyStoreTests {
    @Test("the first claim wins; a second sees pending, then sent once marked (without an outcome: a duplicate for every message)",
          arguments: StoreBackend.allCases)
    func claimLifecycle(backend: StoreBackend) async throws {
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let delivery = DeliveryKey(intentID: "intent-1", deviceToken: try token(1))
            let first = try store.claim([delivery])
            let second = try store.claim([delivery])
            try store.markSent([delivery])
            let third = try store.claim([delivery])
            return first + second + third
        }
        #expect(results == [.claimed, .pending(owner: nil), .sent])
    }

    @Test("a released claim can be claimed again; a failed one is remembered", arguments: StoreBackend.allCases)
    func releaseAndFail(backend: StoreBackend) async throws {
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let retried = DeliveryKey(intentID: "intent-2", deviceToken: try token(2))
            let rejected = DeliveryKey(intentID: "intent-3", deviceToken: try token(3))
            _ = try store.claim([retried, rejected])
            try store.release([retried])
            try store.markFailed([rejected])
            return try store.claim([retried, rejected])
        }
        #expect(results == [.claimed, .failed])
    }

    @Test("release never deletes a finished claim (compare-and-delete)", arguments: StoreBackend.allCases)
    func releaseKeepsSent(backend: StoreBackend) async throws {
        let result = try await withStores(backend) { stores in
            let store = stores.claims()
            let delivery = DeliveryKey(intentID: "intent-4", deviceToken: try token(4))
            _ = try store.claim([delivery])
            try store.markSent([delivery])
            try store.release([delivery])
            return try store.claim([delivery])
        }
        #expect(result == [.sent])
    }

    @Test("a store with an owner knows its own pending claim when it claims again, and its release frees it", arguments: StoreBackend.allCases)
    func ownedClaims(backend: StoreBackend) async throws {
        let results = try await withStores(backend) { stores in
            let store = stores.claims(owner: "worker-a")
            let delivery = DeliveryKey(intentID: "intent-6", deviceToken: try token(6))
            let first = try store.claim([delivery])
            let repeated = try store.claim([delivery])
            try store.release([delivery])
            return first + repeated + (try store.claim([delivery]))
        }
        #expect(results == [.claimed, .heldByOwner, .claimed])
    }

    @Test("a pending claim expires, so a crashed worker's deliveries are claimed again", arguments: StoreBackend.allCases)
    func pendingExpires(backend: StoreBackend) async throws {
        let result = try await withStores(backend) { stores in
            var configuration = IdempotencyStore.Configuration()
            configuration.pendingMilliseconds = 50
            let store = stores.claims(configuration)
            let delivery = DeliveryKey(intentID: "intent-5", deviceToken: try token(5))
            _ = try store.claim([delivery])
            let deadline = Deadline(after: .seconds(5))
            while !deadline.hasPassed {
                if try store.claim([delivery]) == [.claimed] { return true }
            }
            return false
        }
        #expect(result)
    }

    @Test("a batch of 1000 claims is one call and each key is independent", arguments: StoreBackend.allCases)
    func largeBatch(backend: StoreBackend) async throws {
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let deliveries = try (0..<1000).map { DeliveryKey(intentID: "bulk-\($0)", deviceToken: try token($0 % 200)) }
            let first = try store.claim(deliveries)
            let again = try store.claim(deliveries)
            return (first, again)
        }
        #expect(results.0.allSatisfy { $0 == .claimed })
        #expect(results.1.allSatisfy { $0 == .pending(owner: nil) })
    }
}

@Suite("Settled claims and the recorded watermark")
struct SettledClaimTests {
    /// An outcome with every field a claim keeps, a reason with spaces and a fractional latency.
    private static func outcome(at source: SourcePosition, status: OutcomeEvent.Status = .accepted) -> SettledOutcome {
        SettledOutcome(source: source, status: status, completedAt: 1_764_500_000_123, reason: status == .accepted ? nil : "Bad \"reason\" here",
                       apnsUniqueID: "3f2b0c1e-6a4d-4e5f-9a7b-0c1d2e3f4a5b", apnsStatus: status == .accepted ? 200 : 400,
                       apnsTimestamp: status == .accepted ? nil : 1_764_499_999_000, attempts: 2, latencyMilliseconds: 12.375)
    }

    @Test("a claim settled by the same message gives back its outcome, field for field", arguments: StoreBackend.allCases)
    func sameMessageGetsItsOutcome(backend: StoreBackend) async throws {
        let (accepted, rejected) = (Self.outcome(at: position(7)), Self.outcome(at: position(8), status: .rejected))
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let first = DeliveryKey(intentID: "intent-7", deviceToken: try token(7))
            let second = DeliveryKey(intentID: "intent-8", deviceToken: try token(8))
            _ = try store.claim([ClaimRequest(first, source: position(7)), ClaimRequest(second, source: position(8))])
            try store.settle([SettledClaim(first, outcome: accepted), SettledClaim(second, outcome: rejected)], released: [], recorded: [])
            return try store.claim([ClaimRequest(first, source: position(7)), ClaimRequest(second, source: position(8))])
        }
        #expect(results == [.decided(accepted), .decided(rejected)])
    }

    /// A `deferred` outcome decided at offset 9, with its release time.
    private static func deferred(_ reason: String) -> SettledOutcome {
        SettledOutcome(source: position(9), status: .deferred, completedAt: 1_764_500_000_123, reason: reason, releaseAt: 1_764_540_000_000)
    }

    @Test("a claim settled deferred (quiet hours) keeps its release time: the same message gets the deferred outcome back, another is a duplicate",
          arguments: StoreBackend.allCases)
    func deferredClaimKeepsReleaseTime(backend: StoreBackend) async throws {
        let deferred = Self.deferred("QuietHours")
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let key = DeliveryKey(intentID: "intent-9", deviceToken: try token(9))
            _ = try store.claim([ClaimRequest(key, source: position(9))])
            try store.settle([SettledClaim(key, outcome: deferred)], released: [], recorded: [])
            return try store.claim([ClaimRequest(key, source: position(9)), ClaimRequest(key, source: position(10))])
        }
        #expect(results == [.decided(deferred), .failed])
    }

    @Test("a release takes over a deferred claim once; a second release, or one of a delivery decided otherwise, decides nothing",
          arguments: StoreBackend.allCases)
    func releaseTakesOverDeferredClaimOnce(backend: StoreBackend) async throws {
        let deferred = Self.deferred("QuietHours")
        let released = Self.outcome(at: position(30))
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let key = DeliveryKey(intentID: "intent-9", deviceToken: try token(9))
            let sentElsewhere = DeliveryKey(intentID: "intent-12", deviceToken: try token(12))
            let free = DeliveryKey(intentID: "intent-13", deviceToken: try token(13))
            try store.settle([SettledClaim(key, outcome: deferred), SettledClaim(sentElsewhere, outcome: Self.outcome(at: position(12)))],
                             released: [], recorded: [])
            let first = try store.claim([ClaimRequest(key, source: position(30), releasing: true),
                                         ClaimRequest(sentElsewhere, source: position(31), releasing: true),
                                         ClaimRequest(free, source: position(32), releasing: true)])
            let whileHeld = try store.claim([ClaimRequest(key, source: position(33), releasing: true)])
            try store.settle([SettledClaim(key, outcome: released)], released: [], recorded: [])
            let after = try store.claim([ClaimRequest(key, source: position(30), releasing: true),
                                         ClaimRequest(key, source: position(34), releasing: true),
                                         ClaimRequest(key, source: position(35))])
            return first + whileHeld + after
        }
        #expect(results == [.claimed, .recorded, .claimed, .pending(owner: nil), .decided(released), .recorded, .sent])
    }

    @Test("a release that may be deferred again, deferred again and read again (its own record redelivered), finds its own decision, not a deferral to take over: the deferred outcome given back, then nothing once below the recorded watermark; another record's release that may be deferred again takes such a claim over",
          arguments: StoreBackend.allCases)
    func releaseReadAgainFindsItsOwnDeferral(backend: StoreBackend) async throws {
        let deferredAgain = SettledOutcome(source: position(30), status: .deferred, completedAt: 1_764_500_000_123, reason: "BackgroundBudget",
                                           releaseAt: 1_764_540_000_000)
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let key = DeliveryKey(intentID: "intent-21", deviceToken: try token(21))
            let other = DeliveryKey(intentID: "intent-22", deviceToken: try token(22))
            try store.settle([SettledClaim(key, outcome: deferredAgain), SettledClaim(other, outcome: deferredAgain)], released: [], recorded: [])
            // A plain claim between the two releases: a release's place among the script's keys is not its place in the batch.
            let readAgain = try store.claim([ClaimRequest(other, source: position(41), releasing: true, deferrableAgain: true),
                                             ClaimRequest(DeliveryKey(intentID: "plain", deviceToken: try token(23)), source: position(42)),
                                             ClaimRequest(key, source: position(30), releasing: true, deferrableAgain: true)])
            try store.settle([], released: [], recorded: [position(31)])
            return readAgain + (try store.claim([ClaimRequest(key, source: position(30), releasing: true, deferrableAgain: true)]))
        }
        #expect(results == [.claimed, .claimed, .decided(deferredAgain), .recorded])
    }

    @Test("releases batched among plain claims (2,500 of them: more than one script call's 1,000, each that may be deferred again): each deferred claim taken over once but one its own release deferred (in the second call), each reply in its request's place; the same delivery twice in one batch is taken once, in two script calls or in one",
          arguments: StoreBackend.allCases)
    func releasesInOneBatch(backend: StoreBackend) async throws {
        let deferred = Self.deferred("BackgroundBudget")
        let ownDeferral = SettledOutcome(source: position(1_600), status: .deferred, completedAt: 1_764_500_000_123, reason: "BackgroundBudget",
                                         releaseAt: 1_764_540_000_000)
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let released = try (0..<2_500).map { DeliveryKey(intentID: "released-\($0)", deviceToken: try token(1)) }
            let sent = DeliveryKey(intentID: "sent", deviceToken: try token(2))
            try store.settle(released.map { SettledClaim($0, outcome: deferred) } + [SettledClaim(sent, outcome: Self.outcome(at: position(12)))],
                             released: [], recorded: [])
            // Deferred again by the release read from 1,600: its own, below.
            try store.settle([SettledClaim(released[1_500], outcome: ownDeferral)], released: [], recorded: [])
            var requests: [ClaimRequest] = []
            for (index, key) in released.enumerated() {
                requests.append(ClaimRequest(key, source: position(Int64(100 + index)), releasing: true, deferrableAgain: true))
                if index == 1_200 { requests.append(ClaimRequest(DeliveryKey(intentID: "plain", deviceToken: try token(3)), source: position(99))) }
            }
            requests += [ClaimRequest(sent, source: position(40), releasing: true), ClaimRequest(released[7], source: position(41), releasing: true),
                         ClaimRequest(released[2_100], source: position(42), releasing: true)]
            return try store.claim(requests)
        }
        #expect(results.count == 2_504)
        #expect(results.prefix(1_201).allSatisfy { $0 == .claimed })
        #expect(results[1_201] == .claimed, "the plain claim among them")
        #expect(results[1_202..<2_501].indices.allSatisfy { results[$0] == ($0 == 1_501 ? .decided(ownDeferral) : .claimed) },
                "its own deferral given back, the 501st key of the second script call on one Redis")
        #expect(results[2_501] == .recorded, "settled by another message: a release decides nothing")
        #expect(results[2_502] == .pending(owner: nil), "taken over earlier in the same batch (an earlier script call on one Redis)")
        #expect(results[2_503] == .pending(owner: nil), "taken over earlier in the same batch (the same script call on one Redis)")
    }

    @Test("a release that finds a delivery decided otherwise, or held by another attempt (plain or with an owner), leaves that claim as it was, its time to live too",
          arguments: [StoreBackend.redis, .redisCluster])
    func releaseLeavesOtherClaims(backend: StoreBackend) async throws {
        let (results, before, after, timesToLive) = try await withStores(backend) { stores in
            let connection = try #require(stores.connection)
            let sent = DeliveryKey(intentID: "sent", deviceToken: try token(1))
            let held = DeliveryKey(intentID: "held", deviceToken: try token(2))
            let heldPlain = DeliveryKey(intentID: "held-plain", deviceToken: try token(3))
            try stores.claims().settle([SettledClaim(sent, outcome: Self.outcome(at: position(12)))], released: [], recorded: [])
            #expect(try stores.claims(owner: "other").claim([held]) == [.claimed])
            #expect(try stores.claims().claim([heldPlain]) == [.claimed])
            let keys = [sent, held, heldPlain]
            // Shortened below either time to live a write would give (the pending one, 60 s; the
            // finished horizon), so a release that wrote the claim shows in its time to live.
            for key in keys { _ = try connection.send(RedisCommand("PEXPIRE", key.claimKey, "30000")) }
            let values = { () throws -> [String?] in try keys.map { try connection.send(RedisCommand("GET", $0.claimKey)).string } }
            let before = try values()
            let results = try stores.claims(owner: "releaser").claim(keys.enumerated().map { index, key in
                ClaimRequest(key, source: position(Int64(40 + index)), releasing: true)
            })
            let timesToLive = try keys.map { try connection.send(RedisCommand("PTTL", $0.claimKey)).integer ?? -3 }
            return (results, before, try values(), timesToLive)
        }
        #expect(results == [.recorded, .pending(owner: "other"), .pending(owner: nil)])
        #expect(before.allSatisfy { $0 != nil })
        #expect(after == before, "each value as it was")
        #expect(timesToLive.allSatisfy { (1...30_000).contains($0) }, "each time to live as shortened, still running: \(timesToLive)")
    }

    @Test("the kept outcome's integers come back at their extremes", arguments: StoreBackend.allCases)
    func integersAtTheirExtremes(backend: StoreBackend) async throws {
        let source = SourcePosition(topic: "pushline.intents", partition: .max, offset: .max)
        let kept = SettledOutcome(source: source, status: .rejected, completedAt: .min, reason: "BadDeviceToken", apnsStatus: 0,
                                  apnsTimestamp: -1, attempts: 0, latencyMilliseconds: 0)
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let key = DeliveryKey(intentID: "intent-extremes", deviceToken: try token(11))
            try store.settle([SettledClaim(key, outcome: kept)], released: [], recorded: [])
            return try store.claim([ClaimRequest(key, source: source)])
        }
        #expect(results == [.decided(kept)])
    }

    @Test("a claim settled by another message is a duplicate: sent or failed", arguments: StoreBackend.allCases)
    func otherMessageIsDuplicate(backend: StoreBackend) async throws {
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let accepted = DeliveryKey(intentID: "intent-9", deviceToken: try token(9))
            let dropped = DeliveryKey(intentID: "intent-10", deviceToken: try token(10))
            try store.settle([SettledClaim(accepted, outcome: Self.outcome(at: position(9))),
                              SettledClaim(dropped, outcome: Self.outcome(at: position(10), status: .suppressed))], released: [], recorded: [])
            return try store.claim([
                ClaimRequest(accepted, source: position(20)),
                ClaimRequest(accepted, source: position(9, partition: 1)),
                ClaimRequest(dropped, source: SourcePosition(topic: "other.intents", partition: 0, offset: 10)),
            ])
        }
        #expect(results == [.sent, .sent, .failed])
    }

    @Test("below its partition's recorded watermark a settled claim is recorded; at it and above, and on other partitions, it is not",
          arguments: StoreBackend.allCases)
    func recordedWatermark(backend: StoreBackend) async throws {
        let outcomes = (0..<4).map { Self.outcome(at: position(Int64($0))) }
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let keys = try (0..<4).map { DeliveryKey(intentID: "recorded-\($0)", deviceToken: try token(20 + $0)) }
            let other = DeliveryKey(intentID: "recorded-other", deviceToken: try token(30))
            try store.settle(zip(keys, outcomes).map { SettledClaim($0, outcome: $1) }
                             + [SettledClaim(other, outcome: Self.outcome(at: position(1, partition: 1)))],
                             released: [], recorded: [position(2), position(0, partition: 1)])
            return try store.claim(keys.indices.map { ClaimRequest(keys[$0], source: position(Int64($0))) }
                                   + [ClaimRequest(keys[3], source: position(1)), ClaimRequest(other, source: position(1, partition: 1))])
        }
        // Offsets 0 and 1 lie below 2; a duplicate below it was recorded with its message too.
        #expect(results == [.recorded, .recorded, .decided(outcomes[2]), .decided(outcomes[3]), .recorded,
                            .decided(Self.outcome(at: position(1, partition: 1)))])
    }

    @Test("a recorded watermark is raised, never lowered (a new owner of the partition works up from an earlier offset)",
          arguments: StoreBackend.allCases)
    func watermarkOnlyRises(backend: StoreBackend) async throws {
        let outcome = Self.outcome(at: position(5))
        let results = try await withStores(backend) { stores in
            let store = stores.claims()
            let delivery = DeliveryKey(intentID: "intent-12", deviceToken: try token(12))
            try store.settle([SettledClaim(delivery, outcome: outcome)], released: [], recorded: [position(6)])
            try store.settle([], released: [], recorded: [position(2)])
            let afterLower = try store.claim([ClaimRequest(delivery, source: position(5))])
            try store.settle([], released: [], recorded: [position(5)])
            try store.settle([], released: [], recorded: [position(3)])
            return afterLower + (try store.claim([ClaimRequest(delivery, source: position(5))]))
        }
        #expect(results == [.recorded, .recorded])
    }
}

@Suite("Collapse window")
struct CollapseWindowTests {
    private func entry(_ intent: String, createdAt: Int64, device: Int = 1) throws -> CollapseWindow.Entry {
        CollapseWindow.Entry(deviceToken: try token(device), collapseID: "score", intentID: intent, createdAt: createdAt, windowSeconds: 60)
    }

    @Test("newer intents pass; an older one is stale, one created at the same moment a duplicate", arguments: StoreBackend.allCases)
    func ordering(backend: StoreBackend) async throws {
        let decisions = try await withStores(backend) { stores in
            let window = stores.collapseWindow()
            return try window.decide([
                try entry("a", createdAt: 1000),
                try entry("b", createdAt: 2000),
                try entry("c", createdAt: 1500),
                try entry("d", createdAt: 2000),
                try entry("b", createdAt: 2000),
                try entry("e", createdAt: 1500, device: 2),
            ])
        }
        #expect(decisions == [.accepted, .accepted, .stale, .duplicate, .sameIntent, .accepted])
    }

    @Test("after the window the collapse id is free again", arguments: StoreBackend.allCases)
    func windowExpires(backend: StoreBackend) async throws {
        let decision = try await withStores(backend) { stores in
            let window = stores.collapseWindow()
            var short = try entry("a", createdAt: 5000)
            short.windowSeconds = 1
            _ = try window.decide([short])
            let deadline = Deadline(after: .seconds(5))
            while !deadline.hasPassed {
                if try window.decide([try entry("old", createdAt: 1000)]) == [.accepted] { return true }
            }
            return false
        }
        #expect(decision)
    }
}

@Suite("Token registry")
struct TokenRegistryTests {
    @Test("tokens are listed per user, app and environment", arguments: StoreBackend.allCases)
    func registerAndList(backend: StoreBackend) async throws {
        let devices = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            _ = try registry.apply([
                TokenRegistration(action: .register, app: "com.example.app", environment: .production, user: "anna", token: token(1), occurredAt: 10),
                TokenRegistration(action: .register, app: "com.example.app", environment: .production, user: "anna", token: token(2), occurredAt: 20),
                TokenRegistration(action: .register, app: "com.example.app", environment: .sandbox, user: "anna", token: token(3), occurredAt: 30),
                TokenRegistration(action: .register, app: "com.example.app", environment: .production, user: "ben", token: token(4), occurredAt: 40),
            ])
            return try registry.devices(users: ["anna", "ben", "nobody"], app: "com.example.app", environment: "production")
        }
        #expect(Set(devices[0].map(\.token.hex)) == [try token(1).hex, try token(2).hex])
        #expect(devices[1].map(\.registeredAt) == [40])
        #expect(devices[2].isEmpty)
    }

    @Test("a 410 removes the token, unless the device registered it again after APNs' timestamp", arguments: StoreBackend.allCases)
    func removalRespectsReregistration(backend: StoreBackend) async throws {
        let outcome = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            let app = "com.example.app"
            _ = try registry.apply([
                TokenRegistration(action: .register, app: app, environment: .production, user: "anna", token: token(1), occurredAt: 1_000),
                TokenRegistration(action: .register, app: app, environment: .production, user: "anna", token: token(2), occurredAt: 5_000),
            ])
            let removedOld = try registry.remove(app: app, environment: "production", token: try token(1), invalidatedAt: 2_000)
            let keptReregistered = try registry.remove(app: app, environment: "production", token: try token(2), invalidatedAt: 2_000)
            let unknown = try registry.remove(app: app, environment: "production", token: try token(9), invalidatedAt: 2_000)
            let left = try registry.devices(users: ["anna"], app: app, environment: "production")[0].map(\.token.hex)
            return (removedOld, keptReregistered, unknown, left)
        }
        #expect(outcome.0)
        #expect(!outcome.1)
        #expect(!outcome.2)
        #expect(outcome.3 == [try token(2).hex])
    }

    @Test("user locales come from the profile, nil when unknown", arguments: StoreBackend.allCases)
    func locales(backend: StoreBackend) async throws {
        let locales = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            try registry.setLocale("ja-JP", user: "anna")
            return try registry.locales(users: ["anna", "ben"])
        }
        #expect(locales == ["ja-JP", nil])
    }

    @Test("recipients answer each query with its app and environment's devices and the user's locale, in order, repeats included",
          arguments: StoreBackend.allCases)
    func recipients(backend: StoreBackend) async throws {
        let found = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            _ = try registry.apply([
                TokenRegistration(action: .register, app: "com.example.app", environment: .production, user: "anna", token: token(1), occurredAt: 10,
                                  locale: "de"),
                TokenRegistration(action: .register, app: "com.example.app", environment: .sandbox, user: "anna", token: token(2), occurredAt: 20),
                TokenRegistration(action: .register, app: "com.example.other", environment: .production, user: "ben", token: token(3), occurredAt: 30),
            ])
            return try registry.recipients([
                UserQuery(user: "anna", app: "com.example.app", environment: "sandbox"),
                UserQuery(user: "ben", app: "com.example.app", environment: "production"),
                UserQuery(user: "ben", app: "com.example.other", environment: "production"),
                UserQuery(user: "anna", app: "com.example.app", environment: "production"),
                UserQuery(user: "anna", app: "com.example.app", environment: "sandbox"),
            ])
        }
        #expect(found.map { $0.devices.map(\.token.hex) } == [[try token(2).hex], [], [try token(3).hex], [try token(1).hex], [try token(2).hex]])
        #expect(found.map(\.locale) == ["de", nil, nil, "de", "de"])
    }
}
