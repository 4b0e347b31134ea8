import APNsClient
import Synchronization
import Testing

/// A clock tests move by hand.
private final class ManualClock: Sendable {
    private let seconds: Mutex<Int64>

    init(_ start: Int64) {
        seconds = Mutex(start)
    }

    func advance(by delta: Int64) {
        seconds.withLock { $0 += delta }
    }

    var now: @Sendable () -> Int64 { { [self] in seconds.withLock { $0 } } }
}

@Suite("Provider token source")
struct ProviderTokenSourceTests {
    private let start: Int64 = 1_700_000_000

    @Test("the cached token is reused until the refresh interval has passed")
    func reusesTokenWithinInterval() throws {
        let clock = ManualClock(start)
        let source = ProviderTokenSource(credentials: try ProviderTokenTests.devCredentials(), now: clock.now)
        let first = try source.currentToken()
        clock.advance(by: 50 * 60 - 1)
        #expect(try source.currentToken() == first)
    }

    @Test("a new token is signed once the default 50 minutes have passed")
    func refreshesAfterFiftyMinutes() throws {
        let clock = ManualClock(start)
        let source = ProviderTokenSource(credentials: try ProviderTokenTests.devCredentials(), now: clock.now)
        let first = try source.currentToken()
        clock.advance(by: 50 * 60)
        let second = try source.currentToken()
        #expect(second != first)
        #expect(second.issuedAt == start + 50 * 60)
        #expect(first.issuedAt == start)
    }

    @Test("the default policy is 50 minutes")
    func defaultPolicy() {
        #expect(ProviderTokenRefreshPolicy.standard.refreshIntervalSeconds == 50 * 60)
    }

    @Test("a policy never refreshes more often than every 20 minutes", arguments: [0, 60, 19 * 60] as [Int64])
    func intervalHasFloorOfTwentyMinutes(requested: Int64) throws {
        let policy = ProviderTokenRefreshPolicy(refreshIntervalSeconds: requested)
        #expect(policy.refreshIntervalSeconds == 20 * 60)
        let clock = ManualClock(start)
        let source = ProviderTokenSource(credentials: try ProviderTokenTests.devCredentials(), policy: policy, now: clock.now)
        let first = try source.currentToken()
        clock.advance(by: 20 * 60 - 1)
        #expect(try source.currentToken() == first)
        clock.advance(by: 1)
        #expect(try source.currentToken() != first)
    }

    @Test("a policy never keeps a token past 55 minutes, well inside APNs' one hour")
    func intervalHasCeiling() {
        #expect(ProviderTokenRefreshPolicy(refreshIntervalSeconds: 2 * 3600).refreshIntervalSeconds == 55 * 60)
    }

    @Test("a clock that steps backwards does not cause a new signature")
    func backwardsClockKeepsToken() throws {
        let clock = ManualClock(start)
        let source = ProviderTokenSource(credentials: try ProviderTokenTests.devCredentials(), now: clock.now)
        let first = try source.currentToken()
        clock.advance(by: -3600)
        #expect(try source.currentToken() == first)
    }

    @Test("many threads asking at once get one token")
    func concurrentCallersShareOneToken() async throws {
        let source = ProviderTokenSource(credentials: try ProviderTokenTests.devCredentials(), now: ManualClock(start).now)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 { group.addTask { try source.currentToken().jwt } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
    }
}
