import Foundation
import Synchronization
import Runtime

/// Blocking work for async tests (librdkafka polls, flushes, waits on deadlines), run on a thread
/// of its own so it never occupies Swift's cooperative pool.
public enum DedicatedThread {
    /// Runs `body` on a new thread and returns its result. If `body` has not returned after
    /// `timeout` (a C call that hangs), the test fails with that message and the thread is abandoned,
    /// so a test run never hangs.
    public static func run<Result: Sendable>(timeout: Duration = .seconds(100),
                                             _ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = Outcome(continuation)
            ServiceThread().start(name: "pushline-test-work") { outcome.resume(with: Swift.Result { try body() }) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(timeout.wholeMilliseconds)) {
                outcome.resume(with: .failure(TestKitError("the test's blocking work did not finish within \(timeout); something hung")))
            }
        }
    }
}

/// Resumes a continuation once: with the body's result or with the timeout, whichever comes first.
private final class Outcome<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: Result<Value, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}
