internal import CLinux
import Foundation
import Synchronization

/// A thread for one long-running piece of blocking work (a worker's loop, the token feed, a
/// benchmark's steady producer): started once, the error it ended on kept, and ``join()`` to wait
/// for its end from any thread, any number of times.
public final class ServiceThread: Sendable {
    private let finished = Semaphore()
    private let failure = Mutex<(any Error)?>(nil)

    public init() {}

    /// Runs `body` on a new thread named `name` — also for the system (`top -H`, `perf`), which
    /// keeps its first 15 bytes; `whenFailed` is called on that thread with the error `body` ended
    /// on, if any.
    public func start(name: String, _ body: @escaping @Sendable () throws -> Void,
                      whenFailed: @escaping @Sendable (any Error) -> Void = { _ in }) {
        let thread = Thread { [self] in
            // Linux threads otherwise keep the name of the thread that created them.
            pthread_setname_np(pthread_self(), String(decoding: name.utf8.prefix(15), as: UTF8.self))
            do {
                try body()
            } catch {
                failure.withLock { $0 = error }
                whenFailed(error)
            }
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the body has ended and throws the error it ended on; later calls return at once.
    public func join() throws {
        finished.wait()
        finished.signal()
        try rethrowFailure()
    }

    /// Like ``join()``, but waits at most `milliseconds`; false when the body is still running.
    public func join(milliseconds: Int) throws -> Bool {
        guard finished.wait(milliseconds: milliseconds) else { return false }
        finished.signal()
        try rethrowFailure()
        return true
    }

    private func rethrowFailure() throws {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
