import Foundation

/// Runs blocking work (a `RedisConnection`, a blocking socket) on a thread of its own, so that a
/// test or an async caller never blocks Swift's cooperative thread pool.
public enum DedicatedThread {
    /// Runs `body` on a new thread and returns what it returns, or throws what it throws.
    public static func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result { try body() })
            }.start()
        }
    }
}
