import Synchronization

/// ``IdempotencyStore``'s claims kept in this process instead of Redis, with the same semantics and
/// TTLs (docs/pipeline-stores.md): for `pushline demo` when redis-server is not installed. Nothing
/// is kept when the process ends and nothing is shared with another process. Safe from any thread
/// (a `Mutex`); never throws.
public final class InMemoryIdempotencyStore: ClaimStore, Sendable {
    /// What a claim holds.
    private enum State: Equatable {
        case pending(owner: String?)
        case sent
        case failed
    }

    public let configuration: IdempotencyStore.Configuration
    public let owner: String?
    private let claims = Mutex(ExpiringValues<DeliveryKey, State>())

    public init(configuration: IdempotencyStore.Configuration = IdempotencyStore.Configuration(), owner: String? = nil) {
        self.configuration = configuration
        self.owner = owner
    }

    /// Claims every delivery that holds no live claim (`pending` for the pending TTL); reports
    /// what the others hold.
    public func claim(_ deliveries: [DeliveryKey]) -> [IdempotencyStore.ClaimResult] {
        let now = ContinuousClock.now
        let timeToLive = Duration.milliseconds(configuration.pendingMilliseconds)
        return claims.withLock { claims in
            deliveries.map { delivery in
                switch claims.value(for: delivery, at: now) {
                case nil:
                    claims.set(.pending(owner: owner), for: delivery, timeToLive: timeToLive, at: now)
                    return .claimed
                case .pending(let holder): return owner != nil && holder == owner ? .heldByOwner : .pending
                case .sent: return .sent
                case .failed: return .failed
                }
            }
        }
    }

    /// Marks `sent` and `failed` for the finished TTL, then releases what still holds this store's
    /// `pending` (in that order, as the Redis round trip does).
    public func settle(sent: [DeliveryKey] = [], failed: [DeliveryKey] = [], released: [DeliveryKey] = []) {
        let now = ContinuousClock.now
        let timeToLive = Duration.milliseconds(configuration.finishedMilliseconds)
        claims.withLock { claims in
            for delivery in sent { claims.set(.sent, for: delivery, timeToLive: timeToLive, at: now) }
            for delivery in failed { claims.set(.failed, for: delivery, timeToLive: timeToLive, at: now) }
            for delivery in released where claims.value(for: delivery, at: now) == .pending(owner: owner) {
                claims.remove(delivery)
            }
        }
    }
}
