import Foundation
import Runtime
import Synchronization

/// The thread a long-running service (a worker, the token feed) runs its blocking loop on: started
/// once, the error it ended on kept, and ``join()`` to wait for its end from any thread.
final class ServiceThread: Sendable {
    private let finished = Semaphore()
    private let failure = Mutex<(any Error)?>(nil)

    /// Runs `body` on a new thread named `name`; `whenFailed` is called on that thread with the
    /// error `body` ended on, if any.
    func start(name: String, _ body: @escaping @Sendable () throws -> Void, whenFailed: @escaping @Sendable (any Error) -> Void) {
        let thread = Thread { [self] in
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
    func join() throws {
        finished.wait()
        finished.signal()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
