import Foundation
import Synchronization

/// Blocking work on a thread of its own while the caller does something else (producing at a
/// steady rate while outcomes are read back); ``wait(timeout:)`` returns once it is done and
/// rethrows what it threw.
public final class BackgroundWork: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<(any Error)?>(nil)

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () throws -> Void) {
        Thread.detachNewThread { [self] in
            do {
                try body()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
    }

    /// Waits until the work is done; throws what it threw, or a ``LocalStackError`` after `timeout`.
    public func wait(timeout: Duration = .seconds(600)) throws {
        guard done.wait(timeout: .now() + timeout / .seconds(1)) == .success else {
            throw LocalStackError("background work did not finish within \(timeout)")
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
