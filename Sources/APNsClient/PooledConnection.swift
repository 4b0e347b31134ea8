import HTTP2

/// A pool's view of one HTTP/2 connection: whether it may take requests, its provider token, and
/// what is in flight on it. Confined to the pool's loop.
final class PooledConnection {
    enum State { case connecting, ready, draining }

    let http2: HTTP2Connection
    var state: State = .connecting
    /// The provider token this connection sends, and when (the token source's clock, UNIX seconds)
    /// it started sending it.
    private(set) var token: ProviderToken?
    private(set) var tokenAdoptedAt: Int64 = 0
    /// `authorization: bearer <token>`, packed once per adopted token rather than per request.
    private(set) var authorization: HTTP2FieldBlock?
    /// Requests sent on this connection and not yet answered (each delivery knows its stream).
    var inFlight = 0
    /// Streams in the order they were sent, with when (monotonic ns), for the request timeout; an
    /// entry stays until its stream is answered and the timeout sweep reaches it. Its accesses, one
    /// append and one removal per request on the pool's loop, call out to nothing, so the runtime's
    /// exclusivity check is left out (docs/BENCHMARKS.md, "Exclusivity checks").
    @exclusivity(unchecked) var sentStreams = RingQueue<(streamID: Int32, sentAt: UInt64)>()
    var lastActivity: UInt64
    var pingSentAt: UInt64?

    init(http2: HTTP2Connection, now: UInt64) {
        self.http2 = http2
        self.lastActivity = now
    }

    /// Starts sending `token` (adopted at `now`, UNIX seconds).
    func adopt(_ token: ProviderToken, at now: Int64) {
        self.token = token
        tokenAdoptedAt = now
        var fields = HTTP2FieldBlock()
        fields.append("authorization", token.authorization)
        authorization = fields
    }

    /// How many more requests this connection can carry now.
    var freeStreams: Int {
        state == .ready ? max(http2.remoteMaxConcurrentStreams - inFlight, 0) : 0
    }
}
