#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Turns Unix signals into ordinary events: the signals' default actions are disabled and each
/// arrival is delivered to a handler on a Dispatch queue, so shutdown runs as normal code.
public final class SignalWatcher: @unchecked Sendable {
    // Safe to share: the sources are created in `init`, never changed, and Dispatch sources are
    // thread-safe objects (only their Swift overlay lacks the annotation).
    private let sources: [any DispatchSourceSignal]

    /// Starts watching `signals`; `handler` runs once per arrival, off the signal context.
    public init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "pushline.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }

    /// Blocks the calling thread until one of `signals` arrives and returns it (for a `main` that
    /// has nothing else to do while its services run).
    public static func waitForAny(of signals: [Int32]) -> Int32 {
        let received = Mutex<Int32>(0)
        let arrived = Semaphore()
        let watcher = SignalWatcher(signals) { number in
            received.withLock { $0 = number }
            arrived.signal()
        }
        arrived.wait()
        withExtendedLifetime(watcher) {}
        return received.withLock { $0 }
    }
}
