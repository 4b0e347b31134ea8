import Runtime
import Synchronization

/// Items handed from other threads (the producer's event thread, the sender's tasks, the
/// consumer's callbacks) to the worker's thread, which takes them all at once between other work;
/// each arrival wakes that thread if it waits on `wakeUp`.
final class Inbox<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])
    private let wakeUp: Semaphore?

    init(wakeUp: Semaphore? = nil) {
        self.wakeUp = wakeUp
    }

    func append(contentsOf arrived: [Item]) {
        items.withLock { $0.append(contentsOf: arrived) }
        wakeUp?.signal()
    }

    /// Everything that arrived since the last call.
    func take() -> [Item] {
        items.withLock { items in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }
}
