import APNsCore
import Runtime
import Synchronization

/// Hands notifications to APNs as fast as the connections allow and reports the truth about each.
///
/// Pools are registered by name, one per (credentials, environment); a batch goes to one pool and
/// comes back as one ``DeliveryResult`` per notification, in order. When the sender already holds
/// `maximumPending` notifications, `send` waits (backpressure) instead of queueing without bound.
public final class APNsSender: Sendable {
    public let configuration: SenderConfiguration
    private let metrics: SenderMetrics
    private let loop: EventLoop
    private let pools = Mutex<[String: PoolHandle]>([:])
    private let pending: PendingLimit
    /// The pools whose circuit is open, as their loop last reported.
    private let openCircuitNames = Mutex<Set<String>>([])
    /// The pools that cannot connect (no connection ready, the latest connect failed), as their loop last reported.
    private let unreachablePoolNames = Mutex<Set<String>>([])
    /// Whether batches and pools are still handed to the pools' loop: false from ``shutdown()`` on.
    /// Read with the hand-over itself (``unlessShutDown(_:)``), so a batch is either queued ahead of
    /// the pools' shutdown (and answered by it) or refused, never queued on a loop that has stopped.
    private let acceptsBatches = Mutex(true)

    /// A pool and the loop it lives on; the pool itself is only touched on that loop.
    private final class PoolHandle: @unchecked Sendable {
        // Safe to share: `pool` is only used inside `loop.execute` closures.
        let pool: ConnectionPool

        init(pool: ConnectionPool) {
            self.pool = pool
        }
    }

    public init(configuration: SenderConfiguration = SenderConfiguration(), metrics: SenderMetrics = NoSenderMetrics()) throws {
        self.configuration = configuration
        self.metrics = metrics
        self.loop = try EventLoop(name: "apns-sender")
        self.pending = PendingLimit(limit: configuration.maximumPending)
    }

    /// Registers a pool (credentials for one team or certificate, and one environment) under `name`
    /// and opens its minimum connections. Throws ``SenderError/shutDown`` after ``shutdown()``.
    public func addPool(named name: String, credentials: APNsCredentials, environment: APNsEnvironment) throws {
        let pool = try ConnectionPool(name: name, loop: loop, environment: environment, credentials: credentials,
                                      configuration: configuration, metrics: metrics) { [weak self] state in
            self?.openCircuitNames.withLock { if state == .open { $0.insert(name) } else { $0.remove(name) } }
        } reachabilityChanged: { [weak self] reachable in
            self?.unreachablePoolNames.withLock { if reachable { $0.remove(name) } else { $0.insert(name) } }
        }
        let handle = PoolHandle(pool: pool)
        let added = unlessShutDown {
            pools.withLock { $0[name] = handle }
            loop.execute { handle.pool.start() }
        }
        guard added else { throw SenderError.shutDown }
    }

    /// The pools whose circuit is open (an APNs outage: they send only probes), by name, sorted.
    public func openCircuits() -> [String] {
        openCircuitNames.withLock { $0.sorted() }
    }

    /// Whether any of `pools` has its circuit open; cheap enough to ask on every loop of a worker.
    public func hasOpenCircuit(among pools: some Sequence<String>) -> Bool {
        openCircuitNames.withLock { open in !open.isEmpty && pools.contains { open.contains($0) } }
    }

    /// Whether any of `pools` cannot connect: no connection ready and its latest connect failed
    /// (refused, unresolvable, TLS or handshake failure, timed out), whether or not work waits.
    public func hasUnreachablePool(among pools: some Sequence<String>) -> Bool {
        unreachablePoolNames.withLock { unreachable in !unreachable.isEmpty && pools.contains { unreachable.contains($0) } }
    }

    /// Sends a batch through the pool `poolName` (`bulk`: yielding to the others, as in
    /// ``send(_:pool:bulk:answered:)``); returns one result per notification, in order.
    public func send(_ notifications: [APNsNotification], pool poolName: String, bulk: Bool = false) async throws -> [DeliveryResult] {
        var results: [DeliveryResult?] = Array(repeating: nil, count: notifications.count)
        try await send(notifications, pool: poolName, bulk: bulk) { answered in
            for (index, result) in answered { results[index] = result }
        }
        return results.map { $0! }  // every index is answered exactly once before the send returns
    }

    /// Sends a batch through the pool `poolName`, handing over the results as APNs answers: in
    /// chunks (what one turn of the pool's loop answered), each result with its notification's
    /// index, on the caller's task. Returns once every notification has its result. Whoever settles
    /// state per answer (the worker's claims) keeps what a crash leaves uncertain to what is at APNs.
    /// A `bulk` batch yields to the others: they go first, and while they are being sent bulk keeps
    /// to ``SenderConfiguration/bulkStreamsWhileAboveBulkSends`` streams, when that is set.
    /// Cancelling the calling task ends the wait for answers: it throws `CancellationError`, and the
    /// pool goes on with what it holds (sent, retried or expired as usual), its outcomes unread; a
    /// batch still waiting for room under ``SenderConfiguration/maximumPending`` is not sent at all.
    public func send(_ notifications: [APNsNotification], pool poolName: String, bulk: Bool = false,
                     answered: ([(index: Int, result: DeliveryResult)]) -> Void) async throws {
        // Each request goes straight into its delivery, and each result reads its notification in
        // place: no intermediate array, and no copy of a whole notification per request or result.
        try await perform(notifications.count, pool: poolName, bulk: bulk) { index in
            notifications.withUnsafeBufferPointer { buffer in
                let notification = buffer.baseAddress! + index
                return (APNsNotification.request(at: notification), notification.pointee.expiration)
            }
        } answered: { outcomes in
            notifications.withUnsafeBufferPointer { buffer in
                answered(outcomes.map { ($0.index, DeliveryResult(notification: buffer.baseAddress! + $0.index, outcome: $0.outcome)) })
            }
        }
    }

    /// Sends requests through a pool with its retries and deadlines; one outcome per request, in order.
    func perform(_ requests: [(APNsRequest, APNsExpiration)], pool poolName: String) async throws -> [RequestOutcome] {
        var outcomes: [RequestOutcome?] = Array(repeating: nil, count: requests.count)
        try await perform(requests.count, pool: poolName, bulk: false) { requests[$0] } answered: { answered in
            for (index, outcome) in answered { outcomes[index] = outcome }
        }
        return outcomes.map { $0! }  // every index is answered exactly once before perform returns
    }

    /// Sends `count` requests, made by `request` from their index, through a pool; hands over their
    /// outcomes as they come; `bulk` ones yield to the others.
    private func perform(_ count: Int, pool poolName: String, bulk: Bool, request: (Int) -> (APNsRequest, APNsExpiration),
                         answered: ([(index: Int, outcome: RequestOutcome)]) -> Void) async throws {
        guard let handle = pools.withLock({ $0[poolName] }) else { throw SenderError.unknownPool(poolName) }
        guard count > 0 else { return }
        await pending.acquire(count)
        defer { pending.release(count) }
        // Cancelled while it waited for room: none of it reaches the pool.
        try Task.checkCancellation()
        let batch = DeliveryBatch(count: count, now: MonotonicClock.nanoseconds(),
                                  cap: UInt64(configuration.maximumHoldMilliseconds) * 1_000_000, bulk: bulk, request: request)
        // The deliveries are made here, on the caller's thread, so the pool's loop — the sender's
        // busiest thread — only sends them; they are freed here too, once the last outcome is in.
        let deliveries = batch.deliveries
        var answeredCount = 0
        let answers = batch.outcomes()
        guard unlessShutDown({ loop.execute { handle.pool.submit(batch) } }) else {
            batch.abandon()
            throw SenderError.shutDown
        }
        // Ends early only when the caller's task is cancelled (an AsyncStream's iteration ends then).
        for await outcomes in answers {
            answeredCount += outcomes.count
            answered(outcomes)
        }
        withExtendedLifetime(deliveries) {}
        if answeredCount < count { throw CancellationError() }
    }

    /// Runs `handOver` (work handed to the pools' loop) and returns true, unless ``shutdown()`` has
    /// begun: under the lock it flips, so what is handed over is queued ahead of the pools' shutdown.
    private func unlessShutDown(_ handOver: () -> Void) -> Bool {
        acceptsBatches.withLock { accepts in
            if accepts { handOver() }
            return accepts
        }
    }

    /// Closes every connection and stops the sender's loop. Every `send` under way returns, and
    /// nothing is sent again: what was in flight ends ``DeliveryResult/Outcome/uncertain`` (APNs may
    /// have it) whatever ``SenderConfiguration/onUncertain`` says, the rest `failed`; a `send` or
    /// ``addPool(named:credentials:environment:)`` afterwards throws ``SenderError/shutDown``.
    public func shutdown() {
        acceptsBatches.withLock { accepts in
            guard accepts else { return }
            accepts = false
            let handles = pools.withLock { Array($0.values) }
            loop.execute { handles.forEach { $0.pool.shutdown() } }
        }
        loop.shutdown()
    }

    /// The expiration, but never later than `cap` after now.
    static func deadline(expiration: APNsExpiration, now: UInt64, cap: UInt64) -> UInt64 {
        guard case .at(let unixSeconds) = expiration else { return now + cap }
        let remaining = (unixSeconds - ProviderTokenSource.systemNow()) * 1_000_000_000
        return now + UInt64(clamping: min(max(remaining, 0), Int64(clamping: cap)))
    }
}
