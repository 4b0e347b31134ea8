import Synchronization

/// Bounds how many notifications are inside the sender at once: `acquire` waits (asynchronously)
/// while the limit is reached, so a fast producer slows down instead of growing a queue.
final class PendingLimit: Sendable {
    private struct State {
        var available: Int
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>
    let limit: Int

    init(limit: Int) {
        self.limit = max(limit, 1)
        state = Mutex(State(available: self.limit))
    }

    /// Takes `count` places (at most the limit), waiting for them in arrival order.
    func acquire(_ count: Int) async {
        let wanted = min(count, limit)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.waiters.isEmpty && state.available >= wanted {
                    state.available -= wanted
                    return true
                }
                state.waiters.append((wanted, continuation))
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release(_ count: Int) {
        let released = min(count, limit)
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.available += released
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiters.first, first.count <= state.available {
                state.available -= first.count
                ready.append(first.continuation)
                state.waiters.removeFirst()
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }
}
