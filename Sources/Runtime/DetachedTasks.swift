import Synchronization

/// Detached tasks that a thread outside Swift's cooperative pool starts and, when it stops, cancels
/// and waits for: once ``cancelAndWait()`` returns, none of them is still running, so a process that
/// exits next meets none of them halfway through a C library's call.
public final class DetachedTasks: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
        /// Signalled when the last running task ends, while ``cancelAndWait()`` waits.
        var noneLeft: Semaphore?
    }

    private let state = Mutex(State())

    public init() {}

    /// Starts `body` as a detached task at `priority`.
    public func start(priority: TaskPriority? = nil, _ body: @escaping @Sendable () async -> Void) {
        // Held while the task is made: a task that ends at once still finds itself in `running`.
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.running[id] = Task.detached(priority: priority) { [self] in
                await body()
                ended(id)
            }
        }
    }

    /// Cancels every task still running and waits until each has ended. Blocking: call it from a
    /// thread of its own, never from Swift's cooperative pool, and from one thread at a time (the
    /// owner's stop). A task's end is counted when its body returns, before its captures are freed.
    public func cancelAndWait() {
        let noneLeft = Semaphore()
        let running = state.withLock { state in
            state.noneLeft = noneLeft
            return Array(state.running.values)
        }
        guard !running.isEmpty else { return }
        running.forEach { $0.cancel() }
        noneLeft.wait()
    }

    private func ended(_ id: UInt64) {
        let noneLeft = state.withLock { state -> Semaphore? in
            state.running[id] = nil
            return state.running.isEmpty ? state.noneLeft : nil
        }
        noneLeft?.signal()
    }
}
