import Synchronization

/// Runs async work from synchronous code on a thread of its own (the CLI edge, a worker's thread)
/// and waits for it there. Never call it from Swift's cooperative pool: it blocks the thread.
public func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Result<Value, any Error> {
    let outcome = Mutex<Result<Value, any Error>?>(nil)
    let done = Semaphore()
    Task.detached {
        do {
            let value = try await work()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return outcome.withLock { $0! }
}
