import Foundation
import Redis

/// Runs `body` again while it throws a retryable ``RedisError`` (a failover under way), up to
/// `attempts` times 100 ms apart, as the worker's Redis stage retries; returns its result and how
/// many attempts failed. On a connection's own thread.
func retryingRetryable<Result>(attempts: Int = 300, _ body: () throws(RedisError) -> Result) throws(RedisError) -> (result: Result, failures: Int) {
    var failures = 0
    while true {
        do {
            return (try body(), failures)
        } catch {
            failures += 1
            guard error.isRetryable, failures < attempts else { throw error }
            usleep(100_000)
        }
    }
}

/// Whether every reply is `OK`, else the first error reply thrown (as the stores do).
func requireOK(_ replies: [RedisReply]) throws(RedisError) {
    if let error = replies.lazy.compactMap(\.error).first { throw error }
}
