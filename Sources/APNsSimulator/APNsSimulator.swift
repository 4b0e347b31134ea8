#if canImport(Glibc)
import Glibc
#endif
import APNsCore
import Synchronization
import Runtime

/// A faithful local APNs, without I/O: the transport hands it each complete HTTP/2 request and
/// applies the ``SimulatorAction`` and the ``ConnectionEffect``s it returns.
///
/// Device pushes (`POST /3/device/<token>`) are checked in this order, the first failure
/// answering (see `docs/apns-sim.md`):
///
/// 1. 405 `MethodNotAllowed`: the method is not POST.
/// 2. 404 `BadPath`: anything after the token.
/// 3. 400 `MissingDeviceToken`, `BadDeviceToken`: an empty token, or not an even count of hex digits.
/// 4. 400 `DuplicateHeaders`: a header APNs reads appears twice.
/// 5. 400 header values: `InvalidPushType`, `BadPriority`, `BadExpirationDate`, `BadMessageId`,
///    `BadCollapseId`.
/// 6. 403/429 authentication, token connections only (see ``ProviderTokenAuthentication``).
/// 7. 400 topic: `MissingTopic`, `BadTopic`, `TopicDisallowed`.
/// 8. 400 `PayloadEmpty`, 413 `PayloadTooLarge` (4096 bytes; 5120 for voip).
/// 9. Device state: 400 `BadDeviceToken` (unknown in registry mode, or the other environment),
///    `DeviceTokenNotForTopic`, 410 `Unregistered` with `timestamp`.
/// 10. 429 `TooManyRequests`: over the per-device rate.
/// 11. Injected errors: 429 `TooManyRequests`, 500, 503 `ServiceUnavailable`, 503 `Shutdown`.
/// 12. 200, and the notification goes to the inbox.
///
/// Before any check, the connection-reset and stuck-stream faults are drawn.
///
/// Thread-safe: shared state (registry, faults, inbox, channels, stats, random generator) sits
/// in one lock; per-connection state lives in ``SimulatedConnection`` on its own thread.
public final class APNsSimulator: Sendable {
    let configuration: SimulatorConfiguration
    let now: @Sendable () -> Int64
    let authentication: ProviderTokenAuthentication
    let state: Mutex<SimulatorState>
    private let inboxFile: InboxFile?

    /// - Parameter now: the current UNIX time in milliseconds; injectable so tests can move time.
    public init(configuration: SimulatorConfiguration,
                now: @escaping @Sendable () -> Int64 = APNsSimulator.systemNow) throws(SimulatorConfigurationError) {
        self.configuration = configuration
        self.now = now
        let keys = (configuration.trustsDevelopmentKey ? [ProviderKey.development()] : []) + configuration.providerKeys
        self.authentication = ProviderTokenAuthentication(
            verifier: ProviderTokenVerifier(keys: keys), environment: configuration.environment,
            environmentKeyReason: configuration.environmentKeyReason,
            wedgesAfterExpiredToken: configuration.wedgesAfterExpiredToken
        )
        self.state = Mutex(SimulatorState(
            devices: configuration.devices, faults: configuration.faults,
            random: SeededRandom(seed: configuration.randomSeed),
            inbox: DeviceInbox(capacity: configuration.inboxCapacity),
            channels: ChannelStore(limitPerApp: configuration.channelsPerApp)
        ))
        self.inboxFile = try configuration.inboxFile.map { path throws(SimulatorConfigurationError) in try InboxFile(path: path) }
    }

    /// The wall clock, UNIX milliseconds.
    public static let systemNow: @Sendable () -> Int64 = { WallClock.millisecondsSinceEpoch() }

    /// The `SETTINGS_MAX_CONCURRENT_STREAMS` of a new token-authenticated connection: 1 until its
    /// first valid provider token (spec §5.1). Certificate connections start at the full limit;
    /// ``SimulatedConnection/maxConcurrentStreams`` is the value for a given connection.
    public var initialMaxConcurrentStreams: Int { 1 }

    /// State for a new connection. `clientCertificateTopics` non-nil means the client presented a
    /// certificate (certificate authentication), with these topics.
    public func makeConnection(port: ServicePort, clientCertificateTopics: [String]?) -> SimulatedConnection {
        let seed = state.withLock { state in
            state.stats.connectionsOpened += 1
            return state.random.next()
        }
        let limit = clientCertificateTopics == nil ? initialMaxConcurrentStreams : configuration.maxConcurrentStreams
        return SimulatedConnection(port: port, certificateTopics: clientCertificateTopics, maxConcurrentStreams: limit,
                                   random: SeededRandom(seed: seed))
    }

    /// Tells the simulator a connection is gone.
    public func connectionClosed(_ connection: SimulatedConnection) {
        state.withLock { $0.stats.connectionsClosed += 1 }
    }

    /// Decides the answer to one request; effects on the connection are queued on it
    /// (``SimulatedConnection/takeEffects()``).
    public func handle(_ request: SimulatorRequest, on connection: SimulatedConnection) -> SimulatorAction {
        let now = self.now()
        connection.streams += 1
        let (fault, faults) = drawTransportFault()
        if let fault { return fault }
        let outcome: RouteOutcome = switch connection.port {
        case .device where request.pathHasPrefix(Self.devicePathPrefix): devicePush(request, on: connection, now: now)
        case .device where request.pathHasPrefix(Self.broadcastPathPrefix): broadcast(request, on: connection, now: now)
        case .channelManagement: channelManagement(request, on: connection, now: now)
        case .device: unknownPath(request, on: connection)
        }
        let (response, rejection, delay) = complete(outcome)
        applyConnectionRules(to: connection, accepted: (200..<300).contains(response.status), rejection: rejection, faults: faults)
        return .respond(response, delayMilliseconds: delay)
    }

    /// The faults at this moment.
    public var faults: SimulatorFaults { state.withLock { $0.faults } }

    /// Replaces the faults, from the next request on.
    public func setFaults(_ faults: SimulatorFaults) {
        state.withLock { $0.faults = faults }
    }

    /// Changes the faults atomically from their current value (for partial updates such as
    /// `POST /faults`); nothing changes when `change` throws. Returns the faults now in force.
    @discardableResult
    public func updateFaults<Failure: Error>(
        _ change: (SimulatorFaults) throws(Failure) -> SimulatorFaults
    ) throws(Failure) -> SimulatorFaults {
        try state.withLock { (state: inout SimulatorState) throws(Failure) -> SimulatorFaults in
            state.faults = try change(state.faults)
            return state.faults
        }
    }

    /// Adds device-registry entries, replacing those with the same token.
    public func registerDevices(_ entries: [DeviceRegistry.Entry]) {
        state.withLock { $0.devices.add(entries) }
    }

    /// The notifications the devices hold, oldest first; only `token`'s when given.
    public func inbox(token: DeviceToken? = nil) -> [DeliveredNotification] {
        state.withLock { $0.inbox.list(token: token?.hex) }
    }

    /// Empties the in-memory inbox (the inbox file is a log and keeps its lines).
    public func clearInbox() {
        state.withLock { $0.inbox.removeAll() }
    }

    /// The counts so far.
    public func stats() -> SimulatorStats {
        state.withLock { $0.stats }
    }

    /// The counts as a few lines of text, printed on shutdown.
    public func statsSummary() -> String {
        stats().summary
    }

    // MARK: Steps shared by every route

    static let devicePathPrefix = "/3/device/"
    static let broadcastPathPrefix = "/4/broadcasts/apps/"

    /// A path no APNs service serves: 405 for a method APNs never accepts there, else 404.
    private func unknownPath(_ request: SimulatorRequest, on connection: SimulatedConnection) -> RouteOutcome {
        let idHeader = HTTPHeader("apns-id", request.text(request.apns.id) ?? connection.generatedID())
        return .rejected(Rejection(request.isPOST ? .badPath : .methodNotAllowed), idHeader: idHeader)
    }

    /// Counts the request and draws the connection-reset and stuck-stream faults; also returns the
    /// faults in force, which the rest of the request then reads without taking the lock again.
    private func drawTransportFault() -> (SimulatorAction?, SimulatorFaults) {
        state.withLock { state in
            state.stats.requests += 1
            let faults = state.faults
            guard faults.resetConnectionRate + faults.neverRespondRate > 0 else { return (nil, faults) }
            let draw = state.random.unit()
            if draw < faults.resetConnectionRate {
                state.stats.connectionResets += 1
                return (.resetConnection, faults)
            }
            if draw < faults.resetConnectionRate + faults.neverRespondRate {
                state.stats.neverResponded += 1
                return (.neverRespond, faults)
            }
            return (nil, faults)
        }
    }

    /// Turns a route's outcome into the response and its delay, in one turn of the lock: a
    /// deliverable push still passes the device registry, the per-device rate and the injected
    /// errors, then lands in the inbox; the answer is counted and its delay drawn.
    private func complete(_ outcome: RouteOutcome) -> (SimulatorResponse, Rejection?, delay: Int) {
        switch outcome {
        case .rejected(let rejection, let idHeader):
            let delay = countAnswer(status: SimulatorResponse.status(of: rejection), reason: rejection.reason)
            return (.rejection(rejection, idHeader: idHeader), rejection, delay)
        case .answered(let response):
            return (response, nil, countAnswer(status: response.status, reason: nil))
        case .deliverable(let notification, let success, let idHeader):
            let environment = configuration.environment
            let (admitted, delay) = state.withLock { state in
                let admitted = state.admit(notification, environment: environment)
                switch admitted {
                case .failure(let rejection):
                    state.stats.recordAnswer(status: SimulatorResponse.status(of: rejection), reason: rejection.reason)
                case .success:
                    state.stats.recordAnswer(status: 200, reason: nil)
                }
                return (admitted, state.drawDelay())
            }
            switch admitted {
            case .failure(let rejection):
                return (.rejection(rejection, idHeader: idHeader), rejection, delay)
            case .success(let replaced):
                if let inboxFile, !inboxFile.append(notification, replacing: replaced) {
                    state.withLock { $0.stats.inboxWriteFailures += 1 }
                }
                return (success, nil, delay)
            }
        }
    }

    /// Counts an answer that no later step can change, and draws its delay.
    private func countAnswer(status: Int, reason: RejectionReason?) -> Int {
        state.withLock { state in
            state.stats.recordAnswer(status: status, reason: reason)
            return state.drawDelay()
        }
    }

    /// The stream limit (spec §5.1–5.2) and the stream-limit fault, GOAWAY after repeated
    /// authentication failures, and the GOAWAY-every-N-streams fault.
    private func applyConnectionRules(to connection: SimulatedConnection, accepted: Bool, rejection: Rejection?,
                                      faults: SimulatorFaults) {
        let limit: Int
        if connection.usesProviderTokens && connection.currentToken == nil {
            limit = 1
        } else if configuration.collapseStreams && !accepted {
            limit = 1
        } else if faults.maxConcurrentStreams > 0 {
            limit = faults.maxConcurrentStreams
        } else {
            limit = configuration.maxConcurrentStreams
        }
        if limit != connection.maxConcurrentStreams {
            connection.maxConcurrentStreams = limit
            connection.queue(.setMaxConcurrentStreams(limit))
        }
        guard !connection.goingAway else { return }
        let threshold = configuration.authFailuresBeforeGoAway
        if let rejection, rejection.reason.retryClass == .providerAuth, threshold > 0,
           connection.consecutiveAuthFailures >= threshold {
            goAway(connection, reason: rejection.reason)
            return
        }
        if faults.goAwayEveryStreams > 0, connection.streams % faults.goAwayEveryStreams == 0 {
            goAway(connection, reason: .shutdown)
        }
    }

    private func goAway(_ connection: SimulatedConnection, reason: RejectionReason) {
        connection.queue(.goAway(reason: reason.rawValue, errorCode: ConnectionEffect.noError))
        state.withLock { $0.stats.goAwaysByReason[reason.rawValue, default: 0] += 1 }
    }
}
