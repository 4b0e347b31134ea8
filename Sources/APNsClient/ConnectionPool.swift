import APNsCore
import HTTP2
import Runtime
import TLS

/// The connections to one APNs environment with one set of credentials, on one event loop.
///
/// Each request goes to the ready connection with the most free stream capacity (honouring every
/// SETTINGS_MAX_CONCURRENT_STREAMS the server sends, including the collapse to 1 after a rejection);
/// more connections open, a little apart, while requests wait; lost connections are reopened with
/// back-off. Requests above bulk go first; while they are being sent, bulk keeps to
/// `bulkStreamsWhileAboveBulkSends` streams across the pool when that is set (docs/policies.md,
/// "Bulk yields at the sender"). Retries follow the rejection's class: outage-class failures (5xx,
/// connection failures, request timeouts) and refused streams are retried until the notification's
/// deadline, the others within `maximumAttempts`. A ``PoolCircuit`` stops dispatching but for
/// probes while APNs is out. Confined to `loop`: every method runs there.
final class ConnectionPool: HTTP2ConnectionDelegate {
    let name: String
    let loop: EventLoop
    private let environment: APNsEnvironment
    private let credentials: APNsCredentials
    private let tls: TLSContext
    private let configuration: SenderConfiguration
    private let metrics: SenderMetrics
    private let retryBackoff: Backoff
    private let reconnectBackoff: Backoff
    private var random = SystemRandomNumberGenerator()

    private var connections: [ObjectIdentifier: PooledConnection] = [:]
    /// Deliveries ready to be sent: those above bulk first, each oldest first. Taken from once per
    /// request, in accesses that call out to nothing, so the runtime's exclusivity check is left
    /// out (docs/BENCHMARKS.md, "Exclusivity checks").
    @exclusivity(unchecked) private var waiting = WaitingDeliveries()
    /// Bulk requests in flight across the pool's connections.
    private var bulkInFlight = 0
    /// Until when (monotonic ns) bulk keeps to `bulkStreamsWhileAboveBulkSends` streams:
    /// `aboveBulkQuietMilliseconds` after the last request above bulk was sent.
    private var bulkBoundedUntil: UInt64 = 0
    /// Every submitted batch not yet swept, in submission (and so deadline) order.
    private var deadlineOrder = RingQueue<DeliveryBatch>()
    private var deadlineSweepArmed = false
    /// Device tokens answered `TooManyRequests`, and when (monotonic ns) they may be tried again.
    private var deviceBackoff: [String: UInt64] = [:]
    private var lifecycle = Lifecycle.running(failedConnects: 0, reachable: true)
    /// Why the last connection failed or closed, for results that never got an answer.
    private var lastConnectionError: String?
    private var nextConnectAllowedAt: UInt64 = 0
    private var connectTimerArmed = false
    private var dispatchDeferred = false
    /// What the connections tell of their requests' ends.
    private lazy var responseRouter = PoolResponseRouter(pool: self)
    private var circuit: PoolCircuit
    /// The delivery sent as the open circuit's probe, while it is in flight.
    private var probe: PendingDelivery?
    private var probeTimerArmed = false
    /// Deliveries waiting out the back-off after an outage-class failure; released at once when the
    /// circuit closes.
    private var outageRetries: [ObjectIdentifier: PendingDelivery] = [:]
    private var requestTimeoutSweepArmed = false
    /// Told of each circuit transition (the sender's `openCircuits`).
    private let circuitChanged: @Sendable (PoolCircuit.State) -> Void
    /// Told when the pool stops or starts being able to connect (the sender's `unreachablePools`).
    private let reachabilityChanged: @Sendable (Bool) -> Void

    /// The pool's own life: one value instead of a shut-down flag, a reachability flag and a count.
    private enum Lifecycle {
        /// Sending. `failedConnects`: connects failed in a row since a connection was last ready
        /// (the reconnect back-off's attempt). `reachable`: false from a failed connect while no
        /// connection is ready until a connection is ready again — the pool cannot send then,
        /// whether or not work waits (the circuit counts failures only under work).
        case running(failedConnects: Int, reachable: Bool)
        /// Shut down: nothing is dispatched and no connection opens.
        case shutDown
    }

    private var isShutDown: Bool {
        if case .shutDown = lifecycle { true } else { false }
    }

    init(name: String, loop: EventLoop, environment: APNsEnvironment, credentials: APNsCredentials,
         configuration: SenderConfiguration, metrics: SenderMetrics,
         circuitChanged: @escaping @Sendable (PoolCircuit.State) -> Void = { _ in },
         reachabilityChanged: @escaping @Sendable (Bool) -> Void = { _ in }) throws {
        self.name = name
        self.circuitChanged = circuitChanged
        self.reachabilityChanged = reachabilityChanged
        circuit = PoolCircuit(configuration: configuration.circuit)
        self.loop = loop
        self.environment = environment
        self.credentials = credentials
        self.configuration = configuration
        self.metrics = metrics
        let verification: TLSContext.ServerVerification =
            configuration.insecureSkipVerification ? .insecureNoVerification
            : configuration.caFile.map { .certificateAuthorities(file: $0) } ?? .systemTrustStore
        switch credentials {
        case .token:
            tls = try TLSContext.client(alpn: ["h2"], verification: verification)
        case .certificate(let certificateFile, let privateKeyFile):
            tls = try TLSContext.client(alpn: ["h2"], verification: verification,
                                        certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        case .pkcs12(let file, let password):
            tls = try TLSContext.client(alpn: ["h2"], verification: verification, pkcs12File: file, password: password)
        }
        retryBackoff = Backoff(initial: .milliseconds(configuration.retryBackoffMilliseconds),
                               maximum: .milliseconds(configuration.maximumRetryBackoffMilliseconds))
        reconnectBackoff = Backoff(initial: .milliseconds(configuration.reconnectBackoffMilliseconds),
                                   maximum: .milliseconds(configuration.maximumReconnectBackoffMilliseconds))
    }

    // MARK: Entry points (loop thread)

    /// Opens the minimum number of connections and starts the idle check.
    func start() {
        ensureConnections()
        scheduleIdleCheck()
    }

    func submit(_ batch: DeliveryBatch) {
        batch.atTurnEnd = { [loop] handOver in loop.deferUntilBatchEnd(handOver) }
        let deliveries = batch.deliveries
        for delivery in deliveries where delivery.deadline + Self.sweepInterval < batch.deadline {
            // An expiration sooner than the cap: its own timer, as the sweep sees it only in turn.
            loop.schedule(afterMilliseconds: MonotonicClock.milliseconds(until: delivery.deadline)) { [self] in
                deadlinePassed(delivery)
            }
        }
        deadlineOrder.append(batch)
        armDeadlineSweep()
        waiting.append(contentsOf: deliveries)
        dispatch()
    }

    /// The response fields results are made of (``DeliveryResult``, ``BroadcastResult``, channel
    /// ids); a server's other fields are dropped unread.
    static let responseFieldsRead = ["apns-id", "apns-unique-id", "apns-request-id", "apns-channel-id"]

    /// How often the deadlines of submitted deliveries are checked, in nanoseconds.
    private static let sweepInterval: UInt64 = 50_000_000

    /// Batches have (nearly) the same deadline cap and arrive in order, so one periodic sweep from
    /// the front of `deadlineOrder` finds every expired one, without a timer per delivery.
    private func armDeadlineSweep() {
        guard !deadlineSweepArmed, !deadlineOrder.isEmpty else { return }
        deadlineSweepArmed = true
        loop.schedule(afterMilliseconds: Int(Self.sweepInterval / 1_000_000)) { [self] in
            deadlineSweepArmed = false
            let now = MonotonicClock.nanoseconds()
            while let first = deadlineOrder.first, first.isComplete || first.deadline <= now {
                deadlineOrder.removeFirst()
                for delivery in first.deliveries { deadlinePassed(delivery) }
            }
            armDeadlineSweep()
        }
    }

    /// Closes every connection and ends every delivery submitted and not yet answered, so that no
    /// `send` waits on a loop that is stopping, and sends nothing again: those in flight end
    /// `uncertain` (APNs may have them, ``retryHeld(_:cause:uncertain:detail:)``), the rest — waiting
    /// for a stream, held in an outage, backing off before a retry — `failed` (some of those were sent
    /// before: answered 429 or 5xx, or lost with a connection).
    func shutdown() {
        lifecycle = .shutDown
        for connection in Array(connections.values) { connection.http2.close() }
        let now = MonotonicClock.nanoseconds()
        // Every delivery not yet finished belongs to a batch here, wherever it waits (queue, outage, timer).
        for batch in deadlineOrder.removeAll() {
            for delivery in batch.deliveries { finish(delivery, .failed, now: now, detail: "sender shut down") }
        }
        waiting = WaitingDeliveries()
        outageRetries = [:]
    }

    // MARK: Dispatching

    private func dispatch() {
        guard !isShutDown else { return }
        let now = MonotonicClock.nanoseconds()
        guard !circuit.needsProbe else {
            dispatchProbe(now: now)
            reportState()
            return
        }
        // Each connection's free streams, read once; every request then goes to the one with most.
        var candidates = connections.values.compactMap { connection in
            connection.freeStreams > 0 ? DispatchCandidate(connection: connection, freeStreams: connection.freeStreams) : nil
        }
        var held: [PendingDelivery] = []
        var bulkYields = false
        while let delivery = waiting.first {
            if delivery.isFinished {
                waiting.removeFirst()
                continue
            }
            // Only bulk is left waiting (the rest goes first): it keeps to its bound while the lanes above send.
            if delivery.isBulk, let bound = configuration.bulkStreamsWhileAboveBulkSends, now < bulkBoundedUntil, bulkInFlight >= bound {
                bulkYields = true
                break
            }
            // Most of the time no device is backed off: skip hashing the token then.
            if !deviceBackoff.isEmpty, let key = delivery.request.throttleKey, let until = deviceBackoff[key] {
                if until > now {
                    held.append(delivery)
                    waiting.removeFirst()
                    continue
                }
                deviceBackoff[key] = nil // served its back-off: forget it, so the table stays small
            }
            guard let best = candidates.indices.max(by: { candidates[$0].freeStreams < candidates[$1].freeStreams }),
                  candidates[best].freeStreams > 0 else { break }
            waiting.removeFirst()
            candidates[best].freeStreams -= 1
            send(delivery, on: &candidates[best], now: now)
        }
        if !held.isEmpty { hold(held, now: now) }
        // Bulk held to its bound needs no more connections.
        if !waiting.isEmpty && !bulkYields { ensureConnections(growing: true) }
        reportState()
    }

    /// While the circuit is open: the oldest waiting delivery goes alone as a probe when one is due
    /// and a connection can take it; the others wait.
    private func dispatchProbe(now: UInt64) {
        ensureConnections()
        guard circuit.mayDispatch(now: now) else {
            if !circuit.isProbing { armProbeTimer(at: circuit.nextProbeAt) }
            return
        }
        while let first = waiting.first, first.isFinished { waiting.removeFirst() }
        if waiting.isEmpty && !outageRetries.values.contains(where: { !$0.isFinished }) {
            apply(circuit.closeWithoutProbe())
            return
        }
        guard let delivery = waiting.first,
              let connection = connections.values.filter({ $0.freeStreams > 0 }).max(by: { $0.freeStreams < $1.freeStreams })
        else { return }
        waiting.removeFirst()
        var candidate = DispatchCandidate(connection: connection, freeStreams: connection.freeStreams)
        send(delivery, on: &candidate, now: now)
        guard delivery.inFlight != nil else { return }
        probe = delivery
        circuit.probeSent()
        metrics.recordProbe(pool: name)
    }

    private func armProbeTimer(at time: UInt64) {
        guard !probeTimerArmed else { return }
        probeTimerArmed = true
        loop.schedule(afterMilliseconds: MonotonicClock.milliseconds(until: time)) { [weak self] in
            guard let self else { return }
            probeTimerArmed = false
            dispatch()
        }
    }

    /// Requests held back for a throttled device wait for its back-off, without slowing others.
    private func hold(_ deliveries: [PendingDelivery], now: UInt64) {
        for delivery in deliveries {
            let until = delivery.request.throttleKey.flatMap { deviceBackoff[$0] } ?? now
            loop.schedule(afterMilliseconds: MonotonicClock.milliseconds(until: until)) { [weak self] in
                guard let self, !delivery.isFinished else { return }
                waiting.append(delivery)
                dispatch()
            }
        }
    }

    /// A connection that can take requests during one dispatch, with what it has left.
    private struct DispatchCandidate {
        let connection: PooledConnection
        var freeStreams: Int
        /// Its `authorization` field, looked up with its first request of this dispatch.
        var authorization: HTTP2FieldBlock??
    }

    private func send(_ delivery: PendingDelivery, on candidate: inout DispatchCandidate, now: UInt64) {
        let connection = candidate.connection
        do {
            if candidate.authorization == nil { candidate.authorization = try authorization(for: connection) }
            // The request's parts are read in place: copying the whole request costs a retain each.
            // The delivery is the request's context: no closure per request. The connection holds the
            // pool until the stream ends, and ends every stream when it closes.
            let streamID = try connection.http2.send(
                method: delivery.request.method, path: delivery.request.path, authority: environment.host,
                connectionFields: candidate.authorization ?? nil, fields: delivery.request.fields, body: delivery.request.body,
                receiver: responseRouter, context: delivery)
            delivery.attempts += 1
            connection.inFlight += 1
            if delivery.isBulk {
                bulkInFlight += 1
            } else {
                bulkBoundedUntil = now + UInt64(configuration.aboveBulkQuietMilliseconds) * 1_000_000
            }
            delivery.inFlight = (connection, streamID)
            connection.lastActivity = now
            connection.sentStreams.append((streamID, now))
            armRequestTimeoutSweep()
        } catch {
            candidate.freeStreams = 0 // no more on it in this dispatch
            // Never sent: nothing APNs could have seen, nothing for the circuit.
            retryHeld(delivery, cause: "connection", uncertain: false)
        }
    }

    /// The `authorization` header for a request on `connection`: the connection's token, replaced
    /// by the source's newer token only when the connection has used its own for 20 minutes (APNs
    /// answers `TooManyProviderTokenUpdates` to faster changes on one connection).
    private func authorization(for connection: PooledConnection) throws -> HTTP2FieldBlock? {
        guard case .token(let source) = credentials else { return nil }
        let current = try source.currentToken()
        // The same cached token nearly every time: equal strings with shared storage compare at once.
        guard current != connection.token else { return connection.authorization }
        let now = source.now()
        if connection.token == nil || now - connection.tokenAdoptedAt >= ProviderTokenRefreshPolicy.minimumInterval {
            connection.adopt(current, at: now)
            metrics.recordTokenRefresh(pool: name)
        }
        return connection.authorization
    }

    // MARK: Answers

    /// The end of a request's stream (through ``PoolResponseRouter``).
    func handle(_ result: Result<HTTP2Response, HTTP2StreamFailure>, for delivery: PendingDelivery) {
        let now = MonotonicClock.nanoseconds()
        // Nil only when its deadline cancelled the stream, and let go of the connection then.
        let connection = delivery.inFlight?.connection
        if let connection {
            delivery.inFlight = nil
            connection.lastActivity = now
            streamEnded(of: delivery, on: connection)
        }
        let wasProbe = probe === delivery
        if wasProbe { probe = nil }
        guard !delivery.isFinished else {
            if wasProbe { circuit.probeAbandoned(now: now, using: &random) }
            return
        }
        switch result {
        case .success(let response):
            delivery.lastResponse = response
            delivery.lastBody = APNsResponseBody(response.body)
            if (200..<300).contains(response.status) {
                recordAnswer(.healthy, probe: wasProbe, now: now)
                finish(delivery, .accepted, now: now)
            } else {
                let reason = delivery.lastBody.reason ?? .unknown("HTTP \(response.status)")
                if response.status >= 500 {
                    // APNs is out (500, 503 `ServiceUnavailable` or `Shutdown`): held, not failed.
                    recordAnswer(.outage(cause: reason.rawValue), probe: wasProbe, now: now)
                    retryHeld(delivery, cause: reason.rawValue, uncertain: false)
                } else {
                    recordAnswer(.healthy, probe: wasProbe, now: now)
                    handleRejection(delivery, reason: reason, status: response.status, connection: connection, now: now)
                }
            }
        case .failure(let failure):
            handle(failure, for: delivery, probe: wasProbe, now: now)
        }
        dispatchAtBatchEnd()
    }

    /// A request that ended without an answer: expired at its deadline, refused by APNs (always
    /// sent again), or perhaps seen by APNs (uncertain: sent again only when `onUncertain` is `resend`).
    /// A connection's loss counts once for the circuit, in `connectionClosed`, not per stream.
    private func handle(_ failure: HTTP2StreamFailure, for delivery: PendingDelivery, probe: Bool, now: UInt64) {
        switch failure {
        case .cancelled:
            if probe { circuit.probeAbandoned(now: now, using: &random) }
            finish(delivery, .expired, now: now, detail: deadlineDetail(delivery, "with the request in flight"))
        case .refusedByGoAway, .reset(errorCode: HTTP2ErrorCode.refusedStream), .connectionClosedBeforeSent:
            if probe { circuit.probeAbandoned(now: now, using: &random) }
            retryHeld(delivery, cause: failure == .connectionClosedBeforeSent ? "connection" : "refused", uncertain: false)
        case .timedOut:
            recordAnswer(.outage(cause: "timeout"), probe: probe, now: now)
            retryHeld(delivery, cause: "timeout", uncertain: true)
        case .connectionClosed:
            if probe { recordAnswer(.outage(cause: "connection"), probe: true, now: now) }
            retryHeld(delivery, cause: "connection", uncertain: true)
        case .reset(let errorCode):
            recordAnswer(.outage(cause: "reset"), probe: probe, now: now)
            retryHeld(delivery, cause: "reset", uncertain: true, detail: "stream reset with HTTP/2 error \(errorCode)")
        }
    }

    /// Feeds the circuit one ended attempt, and acts on the transition it makes.
    private func recordAnswer(_ answer: PoolCircuit.Answer, probe: Bool, now: UInt64) {
        apply(circuit.record(answer, now: now, probe: probe, using: &random))
    }

    /// A failed or lost connection counts for the circuit only while deliveries wait for the pool:
    /// an idle pool's reconnects say nothing about deliveries, and an open circuit with nothing to
    /// probe with would only keep work away.
    private func recordConnectionFailure(cause: String) {
        // Connections closed by a shutdown are not an outage.
        guard !isShutDown else { return }
        let pending = !waiting.isEmpty || !outageRetries.isEmpty || connections.values.contains { $0.inFlight > 0 }
        guard pending else { return }
        recordAnswer(.outage(cause: cause), probe: false, now: MonotonicClock.nanoseconds())
    }

    /// Reports a circuit transition and acts on it.
    private func apply(_ transition: PoolCircuit.Transition?) {
        guard let transition else { return }
        metrics.recordCircuit(pool: name, state: transition.state, cause: transition.cause)
        circuitChanged(transition.state)
        switch transition.state {
        case .open:
            armProbeTimer(at: circuit.nextProbeAt)
        case .closed:
            // Everything held is sent again now, not when its back-off would have ended.
            for delivery in outageRetries.values where !delivery.isFinished { waiting.append(delivery) }
            outageRetries = [:]
            dispatchAtBatchEnd()
        }
    }

    /// Refills the connections once after a batch of answers rather than after each answer: the
    /// requests go out with the connection's own pending frames in one write.
    private func dispatchAtBatchEnd() {
        guard !dispatchDeferred else { return }
        dispatchDeferred = true
        loop.deferUntilBatchEnd { [self] in
            dispatchDeferred = false
            dispatch()
        }
    }

    private func handleRejection(_ delivery: PendingDelivery, reason: RejectionReason, status: Int,
                                 connection: PooledConnection?, now: UInt64) {
        switch reason.retryClass(status: status) {
        case .retryable:
            if reason == .tooManyRequests, let key = delivery.request.throttleKey {
                // Back off this device only; other devices keep their pace.
                let delay = retryBackoff.jitteredDelay(beforeRetry: delivery.attempts - 1, using: &random)
                deviceBackoff[key] = now + UInt64(delay.wholeNanoseconds)
            }
            retryOrFail(delivery, cause: reason.rawValue, detail: nil)
        case .providerAuth where reason == .expiredProviderToken && !delivery.retriedExpiredToken:
            // The connection is finished after this answer: new token, new connection, one retry.
            delivery.retriedExpiredToken = true
            if case .token(let source) = credentials, let rejected = connection?.token {
                _ = try? source.replaceExpired(rejected)
                metrics.recordTokenRefresh(pool: name)
            }
            if let connection { drain(connection) }
            metrics.recordRetry(pool: name, cause: reason.rawValue)
            waiting.append(delivery)
        case .providerAuth where reason == .tooManyProviderTokenUpdates && delivery.attempts < configuration.maximumAttempts:
            if let connection { drain(connection) }
            metrics.recordRetry(pool: name, cause: reason.rawValue)
            waiting.append(delivery)
        default:
            finish(delivery, .rejected, now: now)
        }
    }

    /// Sends again after an outage-class failure or a refused stream: not bounded by attempts, only
    /// by the deadline; while the circuit is open the delivery simply waits in the pool. An
    /// `uncertain` one (APNs may have it) ends ``DeliveryResult/Outcome/uncertain`` instead unless
    /// the sender resends those.
    private func retryHeld(_ delivery: PendingDelivery, cause: String, uncertain: Bool, detail: String? = nil) {
        let now = MonotonicClock.nanoseconds()
        // Shutting down closes the connections: nothing is sent again, and no timer would fire.
        guard !isShutDown else {
            finish(delivery, uncertain ? .uncertain : .failed, now: now,
                   detail: uncertain ? "may have reached APNs: the sender shut down with the stream open" : "sender shut down")
            return
        }
        guard !uncertain || configuration.onUncertain == .resend else {
            let why = detail ?? (cause == "timeout" ? "no answer within the request timeout" : "connection lost with the stream open")
            finish(delivery, .uncertain, now: now, detail: "may have reached APNs: \(why)")
            return
        }
        metrics.recordRetry(pool: name, cause: cause)
        guard !circuit.needsProbe else {
            waiting.append(delivery)
            return
        }
        let delay = retryBackoff.jitteredDelay(beforeRetry: delivery.attempts - 1, using: &random)
        guard now + UInt64(delay.wholeNanoseconds) < delivery.deadline else {
            finish(delivery, .expired, now: now, detail: deadlineDetail(delivery, "before a retry after \(cause)"))
            return
        }
        let key = ObjectIdentifier(delivery)
        outageRetries[key] = delivery
        loop.schedule(afterMilliseconds: delay.wholeMilliseconds) { [weak self] in
            guard let self, outageRetries.removeValue(forKey: key) != nil, !delivery.isFinished else { return }
            waiting.append(delivery)
            dispatch()
        }
    }

    /// "… passed <when>", naming which deadline: the delivery's own expiration or `max_hold`.
    private func deadlineDetail(_ delivery: PendingDelivery, _ when: String) -> String {
        (delivery.deadlineIsHoldLimit ? "held past max_hold " : "apns-expiration passed ") + when
    }

    /// Sends again after back-off when attempts and the deadline allow; otherwise the delivery fails.
    private func retryOrFail(_ delivery: PendingDelivery, cause: String, detail: String?) {
        let now = MonotonicClock.nanoseconds()
        guard delivery.attempts < configuration.maximumAttempts else {
            finish(delivery, .failed, now: now, detail: detail ?? "retries exhausted after \(cause)")
            return
        }
        let delay = retryBackoff.jitteredDelay(beforeRetry: delivery.attempts - 1, using: &random)
        guard now + UInt64(delay.wholeNanoseconds) < delivery.deadline else {
            finish(delivery, .expired, now: now, detail: deadlineDetail(delivery, "before a retry after \(cause)"))
            return
        }
        metrics.recordRetry(pool: name, cause: cause)
        loop.schedule(afterMilliseconds: delay.wholeMilliseconds) { [weak self] in
            guard let self, !delivery.isFinished else { return }
            waiting.append(delivery)
            dispatch()
        }
    }

    private func deadlinePassed(_ delivery: PendingDelivery) {
        guard !delivery.isFinished else { return }
        if let (connection, streamID) = delivery.inFlight {
            delivery.inFlight = nil
            connection.http2.cancel(streamID: streamID) // its completion reports `.expired`
            streamEnded(of: delivery, on: connection)
            return
        }
        let detail = deadlineDetail(delivery, "before APNs answered")
        finish(delivery, .expired, now: MonotonicClock.nanoseconds(),
               detail: lastConnectionError.map { "\(detail); last connection error: \($0)" } ?? detail)
    }

    /// How often the request timeout is checked: a tenth of it, between 10 ms and 1 s.
    private var requestTimeoutSweepMilliseconds: Int {
        min(max(configuration.requestTimeoutMilliseconds / 10, 10), 1_000)
    }

    /// While requests are in flight, checks each connection's oldest streams: one unanswered after
    /// `requestTimeoutMilliseconds` is cancelled and ends `.timedOut`. Streams are sent in order, so
    /// the sweep stops at the first that is answered or young enough.
    private func armRequestTimeoutSweep() {
        guard !requestTimeoutSweepArmed else { return }
        requestTimeoutSweepArmed = true
        loop.schedule(afterMilliseconds: requestTimeoutSweepMilliseconds) { [weak self] in
            guard let self else { return }
            requestTimeoutSweepArmed = false
            let now = MonotonicClock.nanoseconds()
            let timeout = UInt64(configuration.requestTimeoutMilliseconds) * 1_000_000
            var pending = false
            for connection in Array(connections.values) {
                while let (streamID, sentAt) = connection.sentStreams.first {
                    if !connection.http2.isAwaitingResponse(streamID: streamID) {
                        connection.sentStreams.removeFirst()
                    } else if sentAt + timeout <= now {
                        connection.sentStreams.removeFirst()
                        connection.http2.cancel(streamID: streamID, reporting: .timedOut)
                    } else {
                        break
                    }
                }
                pending = pending || !connection.sentStreams.isEmpty
            }
            if pending { armRequestTimeoutSweep() }
        }
    }

    private func finish(_ delivery: PendingDelivery, _ outcome: DeliveryResult.Outcome, now: UInt64, detail: String? = nil) {
        guard let result = delivery.finish(outcome, now: now, detail: detail) else { return }
        metrics.recordResult(pool: name, outcome: outcome, status: result.response?.status, reason: result.body.reason?.rawValue,
                             latencyMilliseconds: result.latencyMilliseconds)
        delivery.complete(result)
    }

    // MARK: Connections

    /// Opens connections up to the minimum, and one more (spaced, with back-off after failures)
    /// while requests wait and every connection is full.
    private func ensureConnections(growing: Bool = false) {
        guard !isShutDown else { return }
        let open = connections.count
        let connecting = connections.values.contains { $0.state == .connecting }
        let wanted = open < configuration.minimumConnections
            || (growing && !connecting && open < configuration.maximumConnections)
        guard wanted else { return }
        let now = MonotonicClock.nanoseconds()
        guard now >= nextConnectAllowedAt else {
            armConnectTimer(at: nextConnectAllowedAt, growing: growing)
            return
        }
        nextConnectAllowedAt = now + UInt64(configuration.connectionSpacingMilliseconds) * 1_000_000
        do {
            let http2 = try HTTP2Connection(connectingTo: environment.host, port: environment.port, loop: loop, tls: tls,
                                            keepingResponseFields: Self.responseFieldsRead, delegate: self)
            connections[ObjectIdentifier(http2)] = PooledConnection(http2: http2, now: now)
            closeIfNotReady(http2, afterMilliseconds: configuration.connectTimeoutMilliseconds)
        } catch {
            lastConnectionError = "\(error)"
            connectFailed()
        }
        if connections.count < configuration.minimumConnections { armConnectTimer(at: nextConnectAllowedAt, growing: growing) }
    }

    /// A connection stuck before ready (a peer that accepts TCP and answers nothing) would hold the
    /// pool's one connect slot for good: close it after `milliseconds`; `connectionClosed` counts
    /// the failed connect and reconnects with back-off.
    private func closeIfNotReady(_ http2: HTTP2Connection, afterMilliseconds milliseconds: Int) {
        loop.schedule(afterMilliseconds: milliseconds) { [weak self, weak http2] in
            guard let self, let http2, connections[ObjectIdentifier(http2)]?.state == .connecting else { return }
            http2.close(error: SenderError.connectTimedOut(afterMilliseconds: milliseconds))
        }
    }

    private func armConnectTimer(at deadline: UInt64, growing: Bool) {
        guard !connectTimerArmed else { return }
        connectTimerArmed = true
        loop.schedule(afterMilliseconds: MonotonicClock.milliseconds(until: deadline)) { [weak self] in
            guard let self else { return }
            connectTimerArmed = false
            ensureConnections(growing: growing || !waiting.isEmpty)
        }
    }

    private func connectFailed() {
        recordConnectionFailure(cause: "connect")
        guard case .running(let failedConnects, var reachable) = lifecycle else { return }
        if reachable && !connections.values.contains(where: { $0.state == .ready }) {
            reachable = false
            reachabilityChanged(false)
        }
        lifecycle = .running(failedConnects: failedConnects + 1, reachable: reachable)
        let delay = reconnectBackoff.jitteredDelay(beforeRetry: failedConnects, using: &random)
        nextConnectAllowedAt = max(nextConnectAllowedAt, MonotonicClock.nanoseconds() + UInt64(delay.wholeNanoseconds))
        armConnectTimer(at: nextConnectAllowedAt, growing: !waiting.isEmpty)
    }

    /// Takes no new requests on `connection`; it closes once its streams are answered.
    private func drain(_ connection: PooledConnection) {
        guard connection.state != .draining else { return }
        connection.state = .draining
        if connection.inFlight == 0 { connection.http2.close() }
        ensureConnections(growing: true)
    }

    /// `delivery`'s stream on `connection` ended (answered, failed, or cancelled at its deadline);
    /// a draining connection closes with its last one, leaving the pool's counts.
    private func streamEnded(of delivery: PendingDelivery, on connection: PooledConnection) {
        connection.inFlight -= 1
        if delivery.isBulk { bulkInFlight -= 1 }
        if connection.state == .draining && connection.inFlight == 0 { connection.http2.close() }
    }

    func connectionReady(_ connection: HTTP2Connection) {
        connections[ObjectIdentifier(connection)]?.state = .ready
        if case .running(_, let reachable) = lifecycle {
            lifecycle = .running(failedConnects: 0, reachable: true)
            if !reachable { reachabilityChanged(true) }
        }
        dispatch()
    }

    func connectionSettingsChanged(_ connection: HTTP2Connection) {
        dispatch()
    }

    func connection(_ connection: HTTP2Connection, receivedGoAway goAway: HTTP2GoAway) {
        // Streams above the last stream id fail with `refusedByGoAway` and are retried elsewhere.
        if let pooled = connections[ObjectIdentifier(connection)] { drain(pooled) }
    }

    func connectionPingAcknowledged(_ connection: HTTP2Connection) {
        connections[ObjectIdentifier(connection)]?.pingSentAt = nil
    }

    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?) {
        guard let pooled = connections.removeValue(forKey: ObjectIdentifier(connection)) else { return }
        if let error { lastConnectionError = "\(error)" }
        if pooled.state == .connecting {
            connectFailed()
        } else if !isShutDown && (error != nil || pooled.state == .ready) {
            // Lost, not retired: one outage for the circuit, however many streams it carried.
            recordConnectionFailure(cause: "connection")
        }
        // In-flight requests were failed by the connection itself (`connectionClosed`) and retried.
        ensureConnections(growing: !waiting.isEmpty)
        reportState()
    }

    // MARK: Idle connections

    /// PINGs connections idle for the configured time and replaces one whose PING goes unanswered.
    private func scheduleIdleCheck() {
        loop.schedule(afterMilliseconds: max(configuration.idlePingMilliseconds / 4, 100)) { [weak self] in
            guard let self, !isShutDown else { return }
            let now = MonotonicClock.nanoseconds()
            for connection in Array(connections.values) where connection.state == .ready {
                if let sent = connection.pingSentAt {
                    if now - sent > UInt64(configuration.pingTimeoutMilliseconds) * 1_000_000 {
                        connection.http2.close(error: SenderError.pingUnanswered)
                    }
                } else if now - connection.lastActivity > UInt64(configuration.idlePingMilliseconds) * 1_000_000 {
                    connection.pingSentAt = now
                    connection.lastActivity = now
                    connection.http2.ping()
                }
            }
            scheduleIdleCheck()
        }
    }

    private func reportState() {
        var inFlight = 0
        var free = 0
        for connection in connections.values {
            inFlight += connection.inFlight
            free += connection.freeStreams
        }
        metrics.recordPoolState(pool: name, openConnections: connections.count, inFlightStreams: inFlight, freeStreamCapacity: free)
    }

}
