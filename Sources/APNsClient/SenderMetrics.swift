/// Where the sender reports what it does. `APNsTelemetry`'s `SenderMetricsRecorder` implements it
/// with Prometheus metrics; tests can record calls. Called on the pools' event loops: keep it cheap.
public protocol SenderMetrics: Sendable {
    /// A final answer or failure for one notification.
    func recordResult(pool: String, outcome: DeliveryResult.Outcome, status: Int?, reason: String?, latencyMilliseconds: Double)
    /// A request that will be sent again, and why (`TooManyRequests`, `InternalServerError`, `connection`, …).
    func recordRetry(pool: String, cause: String)
    /// A provider token signed anew or adopted by a connection.
    func recordTokenRefresh(pool: String)
    /// The pool's state after a change: open connections, streams in flight, free stream capacity.
    func recordPoolState(pool: String, openConnections: Int, inFlightStreams: Int, freeStreamCapacity: Int)
    /// The pool's circuit changed state (open: only probes go out), and why.
    func recordCircuit(pool: String, state: PoolCircuit.State, cause: String)
    /// A probe sent while the pool's circuit is open.
    func recordProbe(pool: String)
}

/// Records nothing.
public struct NoSenderMetrics: SenderMetrics {
    public init() {}
    public func recordResult(pool: String, outcome: DeliveryResult.Outcome, status: Int?, reason: String?, latencyMilliseconds: Double) {}
    public func recordRetry(pool: String, cause: String) {}
    public func recordTokenRefresh(pool: String) {}
    public func recordPoolState(pool: String, openConnections: Int, inFlightStreams: Int, freeStreamCapacity: Int) {}
    public func recordCircuit(pool: String, state: PoolCircuit.State, cause: String) {}
    public func recordProbe(pool: String) {}
}
