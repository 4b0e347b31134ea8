import APNsCore
import Pipeline
import Testing

private func token(_ byte: Int) throws -> DeviceToken {
    try DeviceToken(String(repeating: String(format: "%02x", byte), count: 32))
}

@Suite("Idempotency claims")
struct IdempotencyStoreTests {
    @Test("the first claim wins; a second sees pending, then sent once marked", arguments: StoreBackend.allCases)
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
        #expect(results == [.claimed, .pending, .sent])
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
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
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
        #expect(results.1.allSatisfy { $0 == .pending })
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
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
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
}
