import Synchronization

/// Things reported from another thread (events, delivery reports), kept in arrival order.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])

    func append(_ event: Event) {
        events.withLock { $0.append(event) }
    }

    func append(contentsOf more: [Event]) {
        events.withLock { $0.append(contentsOf: more) }
    }

    var all: [Event] { events.withLock { $0 } }
    var count: Int { events.withLock { $0.count } }
}
