import Synchronization

/// A value that several threads change (a producer's delivery callback, a reader's thread and the
/// caller), behind a lock and shared by reference: a `Mutex` itself cannot be captured by the
/// escaping closures that run on those threads.
public final class LockedState<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
