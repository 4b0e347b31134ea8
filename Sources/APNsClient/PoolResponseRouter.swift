import HTTP2

/// Hands the ends of a pool's requests to the pool.
///
/// Connections hold their receiver for every request in flight, a retain and a release each. The
/// pool itself is referenced weakly (connection delegate, timers), which moves its reference
/// counts into a side table where every retain takes the slow path; this small object has no weak
/// references, so holding it costs two atomic operations.
final class PoolResponseRouter: HTTP2ResponseReceiver {
    // The pool creates the router, keeps it, and closes its connections (ending every stream)
    // before it goes away: a router is only ever called while its pool is alive.
    private unowned(unsafe) let pool: ConnectionPool

    init(pool: ConnectionPool) {
        self.pool = pool
    }

    func connection(_ connection: HTTP2Connection, endedStreamOf context: AnyObject,
                    with result: Result<HTTP2Response, HTTP2StreamFailure>) {
        // Every request of the pool is sent with its delivery as the context. The pool is borrowed
        // without a retain: its weak references put its counts in a side table (a slow retain).
        Unmanaged.passUnretained(pool)._withUnsafeGuaranteedRef {
            $0.handle(result, for: unsafeDowncast(context, to: PendingDelivery.self))
        }
    }
}
