import Runtime
import Synchronization

/// Runs async work from a synchronous command (the CLI edge) and waits for it on this thread.
func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Result<Value, any Error> {
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
