import APNsClient
import APNsCore
import Enrichment
import Kafka
import Pipeline
import Redis

/// The stages of a delivery that touch Redis, each in at most one round trip per call: plan with
/// the token registry (for `user` recipients), claim (idempotency claims and collapse windows), and
/// record (settle the claims, token events with registry clean-up). Each thread that runs stages
/// (the worker's loop, the ``RedisStage``, the ``RegistryLookups``) has its own: its Redis
/// connection is confined there. A Redis failure is thrown as the ``RedisError``; the
/// caller retries the whole call, which is safe to repeat.
struct DeliveryStages {
    /// What claiming a set of deliveries decided.
    struct Claims: Sendable {
        /// Claimed and through the collapse windows: send these. This worker holds each one's claim
        /// (ownership comes back here, as values, not written into the deliveries).
        var admitted: [PlannedDelivery] = []
        /// Another attempt holds the claim: check again later.
        var deferred: [PlannedDelivery] = []
        /// Suppressed deliveries' outcomes, and the outcomes decided earlier for this very message
        /// that Kafka may not have (emitted again).
        var outputs: [WorkerOutput] = []
        /// Decided earlier, and every output of their message is in Kafka: nothing more to emit.
        var recorded: [PlannedDelivery] = []
        /// How many of ``outputs`` are outcomes decided earlier for the same message, emitted again.
        var reemitted = 0
        /// Deliveries a dead worker left `pending`: taken over to be sent again (`resend`), or
        /// settled `unknown` (`skip`, among ``outputs``).
        var uncertainResent = 0
        var uncertainSkipped = 0
        /// Live Activity updates the policy stage sent at priority 5 (their budget was spent).
        var priorityLowered = 0
    }

    private let records: OutputRecords
    /// The window of intents that name no `dedupe_window`.
    private let defaultCollapseWindowSeconds: Int
    /// The stores' connection; nil with in-memory stores.
    private let redis: RedisConnection?
    private let idempotency: any ClaimStore
    private let collapse: any CollapseStore
    private let registry: any TokenStore
    private let throttles: any ThrottleStore
    /// Nil without a key-encryption key, or with in-memory stores: templates that encrypt then follow their `without_key`.
    private let keys: EncryptionKeyRegistry?
    private let onUncertain: UncertainDeliveryPolicy
    private let policies: DeliveryPolicyStage
    /// Where deliveries deferred by quiet hours or the background budget wait for their release.
    private let deferredStore: any DeferredEntryStore

    /// Connects to Redis, or takes the worker's in-memory stores.
    /// - Parameter owner: this worker's id, written into its `pending` claims in Redis.
    init(configuration: WorkerConfiguration, planner: DeliveryPlanner, stores: StoreAccess, owner: String) throws(RedisError) {
        defaultCollapseWindowSeconds = configuration.collapseWindowSeconds
        onUncertain = configuration.onUncertain
        records = planner.records
        switch stores {
        case .redis(let redisConfiguration):
            let redis = try RedisConnection(configuration: redisConfiguration)
            self.redis = redis
            idempotency = IdempotencyStore(connection: redis, configuration: configuration.idempotency, owner: owner)
            collapse = CollapseWindow(connection: redis)
            registry = TokenRegistry(connection: redis)
            throttles = RedisThrottle(connection: redis)
            keys = configuration.keyEncryptionKey.map { EncryptionKeyRegistry(connection: redis, keyEncryptionKey: $0) }
            let deferred = DeferredStore(connection: redis, pipeline: configuration.pipelineName, configuration: configuration.deferredStore)
            policies = DeliveryPolicyStage(policies: configuration.policies, windows: RollingWindows(connection: redis),
                                           deferredStore: deferred, clock: configuration.wallClock)
            deferredStore = deferred
        case .inMemory(let claims, let collapseWindow, let tokenRegistry, let windows, let throttleBuckets, let deferred):
            redis = nil
            idempotency = claims
            collapse = collapseWindow
            registry = tokenRegistry
            throttles = throttleBuckets
            keys = nil
            policies = DeliveryPolicyStage(policies: configuration.policies, windows: windows, deferredStore: deferred, clock: configuration.wallClock)
            deferredStore = deferred
        }
    }

    // MARK: Throttle

    /// Takes tokens from the throttles' buckets, one round trip for them all (docs/policies.md).
    func takeTokens(_ requests: [ThrottleRequest]) throws(RedisError) -> [ThrottleGrant] {
        try throttles.take(requests)
    }

    // MARK: Plan

    /// The token registry's devices and profiles (locale, time zone) for every `user` recipient
    /// among decoded messages, in one round trip; the messages are then planned with them off the
    /// loop's thread (``DeliveryPlanner/plan(_:found:enricher:)``).
    func recipients(of messages: [WorkerLoop.MessageToPlan]) throws(RedisError) -> [UserQuery: UserRecipients] {
        var queries: [UserQuery] = []
        var seen = Set<UserQuery>()
        for intent in messages.map(\.intent) {
            guard case .user(let user) = intent.recipients else { continue }
            let query = DeliveryPlanner.query(user, intent)
            if seen.insert(query).inserted { queries.append(query) }
        }
        return Dictionary(uniqueKeysWithValues: zip(queries, try registry.recipients(queries)))
    }

    // MARK: Claim

    /// Claims every delivery in one round trip, then applies the collapse windows in one more.
    /// A claim settled by another message is suppressed as `DuplicateIntent`; one settled by this
    /// very message (a redelivery) gets its outcome emitted again, or nothing when its message lies
    /// below the partition's recorded watermark. A claim held by another attempt that lives — or by
    /// this worker for a delivery in `inFlight` or met earlier in this call (another copy of it) — is
    /// deferred; one a dead worker left `pending` follows `on_uncertain` (``resolveOrphaned(_:claims:)``);
    /// a claim this worker holds for nothing in flight (a repeated call) is its own.
    func claim(_ planned: [PlannedDelivery], inFlight: Set<DeliveryKey>) throws(RedisError) -> Claims {
        var claims = Claims()
        guard !planned.isEmpty else { return claims }
        // Room for the whole batch up front: growing the set rehashed every key it held.
        var claimedHere = Set<DeliveryKey>(minimumCapacity: planned.count)
        var claimed: [PlannedDelivery] = []
        claimed.reserveCapacity(planned.count)
        var heldByOthers: [(delivery: PlannedDelivery, holder: String)] = []
        let results = try idempotency.claim(planned.map {
            ClaimRequest($0.key, source: $0.source, releasing: $0.isRelease, deferrableAgain: $0.isBackgroundRelease)
        })
        for (delivery, result) in zip(planned, results) {
            let key = delivery.key
            switch result {
            case .claimed, .heldByOwner:
                // One set operation: inserting tells whether another copy was met earlier in this call.
                guard !inFlight.contains(key) && claimedHere.insert(key).inserted else {
                    claims.deferred.append(delivery)
                    continue
                }
                claimed.append(delivery)
            case .sent, .failed:
                claims.outputs.append(records.outcome(delivery, .suppressed, reason: "DuplicateIntent"))
            case .decided(let settled):
                claims.outputs.append(records.outcome(delivery, settled))
                claims.reemitted += 1
            case .recorded:
                claims.recorded.append(delivery)
            case .pending(let holder?):
                heldByOthers.append((delivery, holder))
            case .pending(nil):
                claims.deferred.append(delivery)
            }
        }
        for delivery in try resolveOrphaned(heldByOthers, claims: &claims) {
            guard !inFlight.contains(delivery.key) && claimedHere.insert(delivery.key).inserted else {
                claims.deferred.append(delivery)
                continue
            }
            claimed.append(delivery)
        }
        let throughWindows = try applyCollapseWindows(claimed, outputs: &claims.outputs)
        claims.admitted = try sealPayloads(try applyPolicies(throughWindows, claims: &claims), outputs: &claims.outputs)
        return claims
    }

    /// Seals the payloads of templates that encrypt with their recipients' keys, read in one round
    /// trip (only when the batch has such deliveries). One that cannot be sealed (no key under
    /// `without_key: invalid`, or a key the key-encryption key does not open) has its claim settled
    /// `invalid` with the reason; returns the rest.
    private func sealPayloads(_ admitted: [PlannedDelivery], outputs: inout [WorkerOutput]) throws(RedisError) -> [PlannedDelivery] {
        let sealing = admitted.filter { $0.delivery.sealing != nil }
        guard !sealing.isEmpty else { return admitted }
        let found = try keys?.keys(for: sealing.map { .init(app: $0.app, token: $0.delivery.token, user: $0.user) })
        let (sealed, refused) = Self.seal(sealing, keys: found, records: records)
        try settleUnsent(refused, outputs: &outputs)
        return Self.replacingSealed(admitted, with: sealed)
    }

    /// The deliveries in their order, each that was to be sealed replaced by its sealed value
    /// (`sealed` holds them in the same order), and those that could not be sealed (nil there) left out.
    private static func replacingSealed(_ planned: [PlannedDelivery], with sealed: [PlannedDelivery?]) -> [PlannedDelivery] {
        var next = sealed.makeIterator()
        var ready: [PlannedDelivery] = []
        ready.reserveCapacity(planned.count)
        for delivery in planned {
            if delivery.delivery.sealing == nil {
                ready.append(delivery)
            } else if let sealedDelivery = next.next(), let sealedDelivery {
                ready.append(sealedDelivery)
            }
        }
        return ready
    }

    /// Under `fail_open` while Redis is out: no key can be read, so deliveries of templates that
    /// encrypt follow their `without_key` rule (the placeholder payload, or `invalid`/`MissingEncryptionKey`).
    static func sealWithoutKeys(_ planned: [PlannedDelivery], records: OutputRecords) -> (ready: [PlannedDelivery], outputs: [WorkerOutput]) {
        let sealing = planned.filter { $0.delivery.sealing != nil }
        guard !sealing.isEmpty else { return (planned, []) }
        let (sealed, refused) = seal(sealing, keys: nil, records: records)
        return (replacingSealed(planned, with: sealed), refused.map { records.outcome($0.planned, $0.outcome) })
    }

    /// Seals each delivery with its key (`keys` in the same order; nil: none found): the sealed
    /// deliveries in their order (nil for one that cannot be sent), and those that cannot be
    /// sent, with their `invalid` outcome.
    private static func seal(_ sealing: [PlannedDelivery], keys: [Result<EncryptionKey?, KeyRegistryError>]?, records: OutputRecords)
        -> (sealed: [PlannedDelivery?], refused: [(planned: PlannedDelivery, outcome: SettledOutcome)]) {
        var sealed: [PlannedDelivery?] = []
        sealed.reserveCapacity(sealing.count)
        var refused: [(planned: PlannedDelivery, outcome: SettledOutcome)] = []
        // The batch's nonces in one draw (a fresh one for each delivery, as before).
        let nonces = keys == nil ? nil : PayloadSealer.randomNonces(sealing.count)
        for (index, planned) in sealing.enumerated() {
            let reason: String
            do throws(EnrichmentError) {
                switch keys?[index] ?? .success(nil) {
                case .success(let key):
                    sealed.append(try planned.sealed(with: key, nonce: nonces.map { PayloadSealer.nonce(index, of: $0) }))
                    continue
                case .failure(let error): reason = error.code.rawValue
                }
            } catch {
                reason = error.code.rawValue
            }
            refused.append((planned, records.decided(planned, .invalid, reason: reason)))
            sealed.append(nil)
        }
        return (sealed, refused)
    }

    /// Claims held `pending` by other workers: deferred while their holder lives; a dead holder's
    /// (its liveness key expired: it died with the delivery at APNs, or before) are uncertain, and
    /// follow `on_uncertain` — taken over and returned, to be sent again (`resend`), or settled with
    /// the outcome `unknown`/`UncertainAfterCrash` (`skip`). Each replacement holds only while the
    /// claim still names the dead holder; one that moved on meanwhile is deferred and read again.
    /// Costs a round trip only when a batch meets another worker's claims (a redelivery).
    private func resolveOrphaned(_ held: [(delivery: PlannedDelivery, holder: String)],
                                 claims: inout Claims) throws(RedisError) -> [PlannedDelivery] {
        guard !held.isEmpty else { return [] }
        let live = try idempotency.liveOwners(among: Array(Set(held.lazy.map(\.holder))))
        claims.deferred += held.lazy.filter { live.contains($0.holder) }.map(\.delivery)
        let orphaned = held.filter { !live.contains($0.holder) }
        let unknown = orphaned.map { onUncertain == .skip ? records.decided($0.delivery, .unknown, reason: "UncertainAfterCrash") : nil }
        let replaced = try idempotency.replace(zip(orphaned, unknown).map { orphan, outcome in
            ClaimReplacement(orphan.delivery.key, holder: orphan.holder, replacement: outcome.map { .settle($0) } ?? .takeOver)
        })
        var takenOver: [PlannedDelivery] = []
        for ((orphan, outcome), replaced) in zip(zip(orphaned, unknown), replaced) {
            if !replaced {
                claims.deferred.append(orphan.delivery)
            } else if let outcome {
                claims.outputs.append(records.outcome(orphan.delivery, outcome))
                claims.uncertainSkipped += 1
            } else {
                takenOver.append(orphan.delivery)
                claims.uncertainResent += 1
            }
        }
        return takenOver
    }

    /// Drops duplicate and stale collapse-id deliveries within their collapse window — the intent's
    /// `dedupe_window`, or the pipeline's when it names none (their claims are marked failed, so a
    /// redelivery is suppressed too); returns the rest.
    private func applyCollapseWindows(_ claimed: [PlannedDelivery], outputs: inout [WorkerOutput]) throws(RedisError) -> [PlannedDelivery] {
        let windowed = claimed.indices.filter { claimed[$0].delivery.collapseID != nil && collapseWindowSeconds(of: claimed[$0]) > 0 }
        guard !windowed.isEmpty else { return claimed }
        let decisions = try collapse.decide(windowed.map { index in
            let planned = claimed[index]
            return CollapseWindow.Entry(deviceToken: planned.delivery.token, collapseID: planned.delivery.collapseID ?? "",
                                        intentID: planned.intentID, createdAt: planned.createdAt ?? records.now(),
                                        windowSeconds: collapseWindowSeconds(of: planned))
        })
        var dropped: [Int: String] = [:]
        for (index, decision) in zip(windowed, decisions) {
            switch decision {
            case .accepted, .sameIntent: continue
            case .duplicate: dropped[index] = "DuplicateCollapse"
            case .stale: dropped[index] = "StaleCollapse"
            }
        }
        guard !dropped.isEmpty else { return claimed }
        try settleUnsent(dropped.sorted(by: { $0.key < $1.key }).map { index, reason in
            (claimed[index], records.decided(claimed[index], .suppressed, reason: reason))
        }, outputs: &outputs)
        return claimed.indices.filter { dropped[$0] == nil }.map { claimed[$0] }
    }

    /// The policy stage's decisions (docs/policies.md): deliveries not to be sent have their claims
    /// settled with their outcome (so a redelivery re-emits it); deferred ones are kept in the
    /// deferred store first (one more round trip, only when there are some), so a claim never says
    /// `deferred` for a delivery the store does not hold. Returns the rest, as the stage changed them.
    private func applyPolicies(_ admitted: [PlannedDelivery], claims: inout Claims) throws(RedisError) -> [PlannedDelivery] {
        guard !admitted.isEmpty else { return admitted }
        let decided = try policies.decide(admitted)
        claims.priorityLowered += decided.priorityLowered
        var sending: [PlannedDelivery] = []
        sending.reserveCapacity(admitted.count)
        var unsent: [(planned: PlannedDelivery, outcome: SettledOutcome)] = []
        var deferred: [DeferredEntry] = []
        for (planned, decision) in zip(admitted, decided.decisions) {
            switch decision {
            case .send(let delivery): sending.append(delivery)
            case .outcome(let status, let reason): unsent.append((planned, records.decided(planned, status, reason: reason)))
            case .deferred(let releaseAt, let deferral):
                unsent.append((planned, records.decided(planned, .deferred, reason: deferral.rawValue, releaseAt: releaseAt)))
                // Over the background budget, the newest per device is kept (coalesced). Its record
                // keeps the delivery as planned, before this stage changed it and before sealing: its
                // release goes through both again.
                deferred.append(DeferredEntry(id: planned.delivery.notificationID.description, releaseAt: releaseAt,
                                              body: ReleaseRecord.encoded(planned),
                                              coalescing: deferral == .backgroundBudget ? planned.delivery.token.hex : nil))
            }
        }
        try deferredStore.keep(deferred)
        try settleUnsent(unsent, outputs: &claims.outputs)
        return sending
    }

    /// Settles the claims of claimed deliveries that will not be sent with their outcomes, in one
    /// round trip (none when there are none), and adds the outcomes to `outputs`.
    private func settleUnsent(_ unsent: [(planned: PlannedDelivery, outcome: SettledOutcome)], outputs: inout [WorkerOutput]) throws(RedisError) {
        guard !unsent.isEmpty else { return }
        try idempotency.settle(unsent.map { SettledClaim($0.planned.key, outcome: $0.outcome) }, released: [], recorded: [])
        outputs += unsent.map { records.outcome($0.planned, $0.outcome) }
    }

    private func collapseWindowSeconds(of planned: PlannedDelivery) -> Int {
        planned.dedupeWindow.map { Int($0) } ?? defaultCollapseWindowSeconds
    }

    /// Gives back the claims of deliveries this worker will not send (shutdown); a release deletes
    /// only a claim this worker holds, so a delivery it never claimed is left as it is.
    func release(_ planned: [PlannedDelivery]) throws(RedisError) {
        if !planned.isEmpty { try idempotency.release(planned.map(\.key)) }
    }

    /// Says this worker lives and renews the pending claims it holds for `held`, in one round trip.
    func keepAlive(holding held: Set<DeliveryKey>, livenessMilliseconds: Int) throws(RedisError) {
        try idempotency.keepAlive(holding: Array(held), livenessMilliseconds: livenessMilliseconds)
    }

    /// Whether Redis answers (in-memory stores always do).
    func ping() throws(RedisError) {
        _ = try redis?.send(RedisCommand("PING"))
    }

    // MARK: Send and record

    /// Settles the claims this worker holds by result (accepted → sent, rejected or expired →
    /// failed, each with its outcome; failed → released), sets the recorded watermarks `recorded`,
    /// in one round trip, and builds the token events for what APNs said about tokens (their outcomes
    /// are built off this thread: ``OutputRecords/sent(_:_:)``; a delivery whose records went out
    /// during a `fail_open` outage only has its claim settled).
    func record(_ sent: [SentDelivery], recorded: [SourcePosition]) throws(RedisError) -> [WorkerOutput] {
        var outputs: [WorkerOutput] = []
        var settled: [SettledClaim] = []
        var released: [DeliveryKey] = []
        // Fields read where they lie: a local copy of a delivery's result retained each of its strings.
        for delivery in sent {
            if delivery.holdsClaim {
                switch delivery.result.outcome {
                // Uncertain (`on_uncertain: skip`): settled with its `unknown` outcome, never sent again.
                case .accepted, .rejected, .expired, .uncertain: settled.append(SettledClaim(delivery.planned.key, outcome: delivery.settled))
                case .failed: released.append(delivery.planned.key)
                }
            }
            if !delivery.onlyClaimLeft, let event = try tokenEvent(delivery) { outputs.append(event) }
        }
        try idempotency.settle(settled, released: released, recorded: recorded)
        return outputs
    }

    /// Sets the recorded watermarks alone, when no record round trip came to carry them.
    func record(_ recorded: [SourcePosition]) throws(RedisError) {
        try idempotency.settle([], released: [], recorded: recorded)
    }

    /// The token event, if APNs said something about the token; `unregistered` and `expired` also
    /// remove the token from the registry unless it was registered again after APNs' timestamp.
    /// Read from the sent delivery in place: a result passed by value was copied, its strings
    /// retained and released, for every delivery, though APNs says nothing about most tokens.
    private func tokenEvent(_ delivery: SentDelivery) throws(RedisError) -> WorkerOutput? {
        guard let reason = delivery.result.reason, let kind = TokenEvent.kind(for: reason) else { return nil }
        let removed = kind == .suspect ? false
            : try registry.remove(app: delivery.planned.app, environment: delivery.planned.environment.rawValue,
                                  token: delivery.planned.delivery.token, invalidatedAt: delivery.result.timestamp ?? records.now())
        return records.tokenEvent(delivery.planned, delivery.result, removed: removed)
    }
}
