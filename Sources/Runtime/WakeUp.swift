#if canImport(Glibc)
import Glibc
#endif
internal import CLinux

/// A descriptor another thread makes readable to wake a thread waiting in `epoll` or `poll` (an
/// eventfd): ``signal()`` from any thread, ``drain()`` on the waiting one before it reads what it
/// was woken for. Signals before a drain coalesce into one wake-up. The descriptor is closed when
/// the last holder lets go, so a late ``signal()`` never writes to a number since given to
/// something else.
public final class WakeUp: Sendable {
    /// Readable (`POLLIN`, `EPOLLIN`) from a ``signal()`` until the next ``drain()``.
    public let descriptor: Int32

    /// A non-blocking eventfd, closed on `exec`.
    public init() throws(SystemError) {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0 else { throw SystemError("eventfd") }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Makes the descriptor readable. Safe from any thread.
    public func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Makes the descriptor unreadable again, whatever number of signals came since the last drain.
    public func drain() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, 8)
    }
}
