import Runtime

/// Blocking work on a thread of its own while the caller does something else (producing at a
/// steady rate while outcomes are read back); ``wait(timeout:)`` returns once it is done and
/// rethrows what it threw.
public final class BackgroundWork: Sendable {
    private let thread = ServiceThread()

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () throws -> Void) {
        thread.start(name: "pushline-background-work", body)
    }

    /// Waits until the work is done; throws what it threw, or a ``LocalStackError`` after `timeout`.
    public func wait(timeout: Duration = .seconds(600)) throws {
        guard try thread.join(milliseconds: timeout.wholeMilliseconds) else {
            throw LocalStackError("background work did not finish within \(timeout)")
        }
    }
}
