import Synchronization

/// What callbacks on other threads recorded, readable from the test.
final class RecordLog<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    func append(contentsOf batch: [Element]) {
        elements.withLock { $0.append(contentsOf: batch) }
    }

    var all: [Element] { elements.withLock { $0 } }
}
