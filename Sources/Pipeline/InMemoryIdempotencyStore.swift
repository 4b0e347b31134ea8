import Synchronization
import Runtime

/// ``IdempotencyStore``'s claims and recorded watermarks kept in this process instead of Redis, with
/// the same semantics and TTLs (docs/pipeline-stores.md): for `pushline-dev demo` when redis-server is
/// not installed. Nothing is kept when the process ends and nothing is shared with another process.
/// Safe from any thread (a `Mutex`); never throws.
public final class InMemoryIdempotencyStore: ClaimStore, Sendable {
    /// What a claim holds.
    private enum Claim: Equatable {
        case pending(owner: String?)
        case settled(SettledClaim.State, SettledOutcome?)
    }

    private struct State {
        var claims = ExpiringValues<DeliveryKey, Claim>()
        /// Keyed like the Redis keys: `pushline:recorded:<topic>:<partition>`.
        var recorded = ExpiringValues<String, Int64>()
    }

    public let configuration: IdempotencyStore.Configuration
    public let owner: String?
    private let state = Mutex(State())

    public init(configuration: IdempotencyStore.Configuration = IdempotencyStore.Configuration(), owner: String? = nil) {
        self.configuration = configuration
        self.owner = owner
    }

    /// Claims every delivery that holds no live claim (`pending` for the pending TTL), and a
    /// release's delivery whose claim keeps a `deferred` outcome (for a release that may be deferred
    /// again, only one another message decided); reports what
    /// the others hold, a settled claim read against its partition's recorded watermark.
    public func claim(_ requests: [ClaimRequest]) -> [IdempotencyStore.ClaimResult] {
        let now = MonotonicClock.now
        let timeToLive = Duration.milliseconds(configuration.pendingMilliseconds)
        return state.withLock { state in
            requests.map { request in
                switch state.claims.value(for: request.key, at: now) {
                case nil:
                    state.claims.set(.pending(owner: owner), for: request.key, timeToLive: timeToLive, at: now)
                    return .claimed
                case .settled(.failed, let outcome?)
                    where request.releasing && outcome.status == .deferred && !(request.deferrableAgain && outcome.source == request.source):
                    state.claims.set(.pending(owner: owner), for: request.key, timeToLive: timeToLive, at: now)
                    return .claimed
                case .pending(let holder): return owner != nil && holder == owner ? .heldByOwner : .pending(owner: holder)
                case .settled(let settled, let outcome):
                    let watermark = state.recorded.value(for: request.source.topicPartition.recordedKey, at: now)
                    return .settled(settled, outcome, claimedFrom: request.source, recordedUpTo: watermark, releasing: request.releasing)
                }
            }
        }
    }

    /// Settles claims for the finished TTL, releases what still holds this store's `pending`, then
    /// raises the recorded watermarks, never lowering one (in that order, as the Redis round trip does).
    public func settle(_ settled: [SettledClaim], released: [DeliveryKey] = [], recorded: [SourcePosition] = []) {
        let now = MonotonicClock.now
        let timeToLive = Duration.milliseconds(configuration.finishedMilliseconds)
        state.withLock { state in
            for claim in settled { state.claims.set(.settled(claim.state, claim.outcome), for: claim.key, timeToLive: timeToLive, at: now) }
            for delivery in released where state.claims.value(for: delivery, at: now) == .pending(owner: owner) {
                state.claims.remove(delivery)
            }
            for position in recorded {
                let key = position.topicPartition.recordedKey
                guard state.recorded.value(for: key, at: now).map({ $0 < position.offset }) ?? true else { continue }
                state.recorded.set(position.offset, for: key, timeToLive: timeToLive, at: now)
            }
        }
    }

    /// Renews the pending TTL of `held` claims that still hold this store's `pending`; every owner
    /// of this process lives as long as it does, so there is no liveness to keep.
    public func keepAlive(holding held: [DeliveryKey], livenessMilliseconds: Int) {
        let now = MonotonicClock.now
        let timeToLive = Duration.milliseconds(configuration.pendingMilliseconds)
        state.withLock { state in
            for key in held where state.claims.value(for: key, at: now) == .pending(owner: owner) {
                state.claims.set(.pending(owner: owner), for: key, timeToLive: timeToLive, at: now)
            }
        }
    }

    /// Every owner: the claims of this store live and die with this process.
    public func liveOwners(among owners: [String]) -> Set<String> {
        Set(owners)
    }

    /// Replaces each claim that still holds its holder's `pending`.
    public func replace(_ replacements: [ClaimReplacement]) -> [Bool] {
        let now = MonotonicClock.now
        return state.withLock { state in
            replacements.map { replacement in
                guard state.claims.value(for: replacement.key, at: now) == .pending(owner: replacement.holder) else { return false }
                switch replacement.replacement {
                case .takeOver:
                    state.claims.set(.pending(owner: owner), for: replacement.key,
                                     timeToLive: .milliseconds(configuration.pendingMilliseconds), at: now)
                case .settle(let outcome):
                    let claim = SettledClaim(replacement.key, outcome: outcome)
                    state.claims.set(.settled(claim.state, outcome), for: replacement.key,
                                     timeToLive: .milliseconds(configuration.finishedMilliseconds), at: now)
                }
                return true
            }
        }
    }
}
