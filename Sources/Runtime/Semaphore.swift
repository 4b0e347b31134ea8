#if canImport(Glibc)
import Glibc
#endif

/// A counting semaphore for handing a result from an event loop back to a waiting thread outside
/// Swift's cooperative pool (tests, start-up, shutdown), and for waking a thread that waits for
/// hand-overs (the worker's loop, the consumer's poll).
public final class Semaphore: @unchecked Sendable {
    // Safe to share: the POSIX semaphore synchronises itself.
    private let semaphore: UnsafeMutablePointer<sem_t>

    public init(value: UInt32 = 0) {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, value)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    public func signal() {
        sem_post(semaphore)
    }

    public func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }

    /// Takes a signal if one is standing, without waiting; false when none is. It makes no system
    /// call and does not sleep; `sem_timedwait` with a deadline already passed slept about 80 µs a
    /// call here (docs/BENCHMARKS.md, "Stale wake-ups taken without sleeping").
    public func tryWait() -> Bool {
        sem_trywait(semaphore) == 0
    }

    /// Waits at most `milliseconds`; false when the time ran out. With 0 or less it does not wait
    /// at all (``tryWait()``).
    public func wait(milliseconds: Int) -> Bool {
        guard milliseconds > 0 else { return tryWait() }
        // sem_timedwait takes an absolute time on the wall clock.
        let end = WallClock.system.nanosecondsSinceEpoch() + Int64(milliseconds) * 1_000_000
        var deadline = timespec(tv_sec: Int(end / 1_000_000_000), tv_nsec: Int(end % 1_000_000_000))
        while true {
            if sem_timedwait(semaphore, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
