import APNsCore

/// Everything the simulator shares between connections, kept in one lock.
struct SimulatorState {
    var devices: DeviceRegistry
    var faults: SimulatorFaults
    var random: SeededRandom
    var deviceRates = DeviceRateLimiter()
    var inbox: DeviceInbox
    var channels: ChannelStore
    var stats = SimulatorStats()

    /// Steps 9 to 12 of a deliverable push (see ``APNsSimulator``): the device registry, the
    /// per-device rate, the injected errors, then the inbox. Returns the notification it replaced
    /// through its collapse id, if any.
    mutating func admit(_ notification: DeliveredNotification,
                        environment: SimulatorEnvironment) -> Result<DeliveredNotification?, Rejection> {
        if let token = notification.token,
           let rejection = devices.rejection(token: token, topic: notification.topic, environment: environment) {
            return .failure(rejection)
        }
        let limit = faults.deviceRequestsPerSecond
        if let token = notification.token, limit > 0,
           !deviceRates.admits(token: token, now: notification.receivedAt, limit: limit) {
            return .failure(Rejection(.tooManyRequests))
        }
        if let injected = drawInjectedError() { return .failure(injected) }
        return .success(inbox.record(notification))
    }

    /// The error that replaces an acceptance, drawn from the fault rates, or nil.
    mutating func drawInjectedError() -> Rejection? {
        guard faults.injectedErrorRate > 0 else { return nil }
        var draw = random.unit()
        let choices: [(Double, RejectionReason)] = [
            (faults.tooManyRequestsRate, .tooManyRequests), (faults.internalServerErrorRate, .internalServerError),
            (faults.serviceUnavailableRate, .serviceUnavailable), (faults.shutdownRate, .shutdown),
        ]
        for (rate, reason) in choices {
            if draw < rate { return Rejection(reason) }
            draw -= rate
        }
        return nil
    }

    /// The delay of one answer: the fixed latency plus a uniform jitter.
    mutating func drawDelay() -> Int {
        faults.latencyMilliseconds + (faults.jitterMilliseconds > 0 ? Int.random(in: 0...faults.jitterMilliseconds, using: &random) : 0)
    }
}
