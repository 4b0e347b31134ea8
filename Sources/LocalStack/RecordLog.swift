import Synchronization

/// What callbacks on other threads recorded, readable from the caller.
public final class RecordLog<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    public init() {}

    public func append(contentsOf batch: [Element]) {
        elements.withLock { $0.append(contentsOf: batch) }
    }

    public var all: [Element] { elements.withLock { $0 } }
}
