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

    /// Into an empty inbox (the usual case: the worker's thread takes everything at once), `arrived`
    /// is kept as it is, not copied item by item.
    func append(contentsOf arrived: [Item]) {
        items.withLock { items in
            if items.isEmpty { items = arrived } else { items.append(contentsOf: arrived) }
        }
        wakeUp?.signal()
    }

    /// Everything that arrived since the last call, handed over without a copy.
    func take() -> [Item] {
        items.withLock { items in
            var taken: [Item] = []
            swap(&taken, &items)
            return taken
        }
    }
}
