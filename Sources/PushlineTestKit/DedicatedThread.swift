import Foundation

/// Blocking work for async tests (librdkafka polls, flushes, waits on deadlines), run on a thread
/// of its own so it never occupies Swift's cooperative pool.
public enum DedicatedThread {
    /// Runs `body` on a new thread and returns its result.
    public static func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
        }
    }
}
