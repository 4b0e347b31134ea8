/// How the sender's pools and retries behave. Defaults in one place.
public struct SenderConfiguration: Sendable {
    /// Connections opened at start and kept open.
    public var minimumConnections = 1
    /// Connections a pool may open under load.
    public var maximumConnections = 4
    /// Pause between opening two connections of a pool (APNs treats bursts of connects as abuse).
    public var connectionSpacingMilliseconds = 100
    /// Attempts per notification, the first included, for retries about the request itself (429
    /// `TooManyRequests`, provider-token retries). Outage-class failures (5xx, connection failures,
    /// request timeouts) and refused streams do not count: they are retried until the deadline.
    public var maximumAttempts = 5
    /// First back-off after a retryable failure; doubles each time, with jitter (always on), up to the maximum.
    public var retryBackoffMilliseconds = 100
    public var maximumRetryBackoffMilliseconds = 30_000
    /// Reconnect back-off (1 s → 60 s with jitter, per APNs' advice not to hammer it).
    public var reconnectBackoffMilliseconds = 1_000
    public var maximumReconnectBackoffMilliseconds = 60_000
    /// A notification's deadline: its expiration, capped at this many milliseconds after submission
    /// (`max_hold`): how long a delivery may be held through an APNs outage before it ends `expired`.
    public var maximumHoldMilliseconds = 3_600_000
    /// A request not answered this long after it was sent is cancelled (RST_STREAM) and counts as
    /// an outage-class failure; APNs may have processed it, so it is uncertain.
    public var requestTimeoutMilliseconds = 10_000
    /// When each pool's circuit opens, and how it probes.
    public var circuit = PoolCircuit.Configuration()
    /// What becomes of a request that may have reached APNs without an answer (reset after it was
    /// written, its connection lost with the stream open, timed out): sent again (`resend`,
    /// at-least-once, the default), or ended ``DeliveryResult/Outcome/uncertain`` (`skip`). Streams
    /// APNs refused (REFUSED_STREAM, above a GOAWAY's last stream id) are always sent again.
    public var onUncertain = UncertainDeliveryPolicy.resend
    /// Bulk requests (sends marked `bulk`: the lightest lane's) the pool keeps in flight across its
    /// connections while requests above bulk are being sent — one was sent within
    /// `aboveBulkQuietMilliseconds`. APNs answers a connection's streams about in the order they
    /// came, so a request above bulk waits for the bulk in flight ahead of it; the rest of the bulk
    /// waits in the pool behind it instead. At least 1; with nothing above bulk, bulk takes every stream.
    /// `nil` (the default): no bound. Bound, bulk's rate while the lanes above send is at most this
    /// many requests per round trip to APNs, which a far APNs makes small (100 / 50 ms = 2,000/s).
    public var bulkStreamsWhileAboveBulkSends: Int? = nil
    public var aboveBulkQuietMilliseconds = 1_000
    /// Notifications accepted and not yet finished, across the pool; beyond it `send` waits.
    public var maximumPending = 20_000
    /// PING a connection that has been idle this long; close it when the PING is not answered
    /// within `pingTimeoutMilliseconds`.
    public var idlePingMilliseconds = 60_000
    public var pingTimeoutMilliseconds = 10_000
    /// A connection not ready this long after it was started — TCP connect, TLS handshake and the
    /// server's first SETTINGS — is closed and counts as a failed connect (reconnect back-off).
    public var connectTimeoutMilliseconds = 10_000
    /// TLS: the CA file to trust instead of the system store, or no verification at all (local
    /// testing only, behind an explicit flag).
    public var caFile: String?
    public var insecureSkipVerification = false

    public init() {}
}
