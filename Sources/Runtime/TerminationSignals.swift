#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM (and SIGHUP, when asked for), blocked from creation on. Create it before
/// starting any thread: threads inherit the mask, so the signals stay pending until ``wait(onHangUp:)``
/// takes them and the command can shut down cleanly. The one signal watcher of every command that
/// runs until stopped (`pushline run`, `apns-sim`, `pushline-dev dev-kafka`).
public struct TerminationSignals: Sendable {
    private let signals: sigset_t

    /// - Parameter hangUp: also take SIGHUP, which then no longer ends the process: ``wait(onHangUp:)``
    ///   calls its handler instead (`pushline run` reloads templates and strings).
    public init(hangUp: Bool = false) {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        if hangUp { sigaddset(&signals, SIGHUP) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        self.signals = signals
    }

    /// Blocks until SIGINT or SIGTERM arrives; returns which. Each SIGHUP before it (when taken)
    /// calls `onHangUp` on the waiting thread.
    public func wait(onHangUp: () -> Void = {}) -> Int32 {
        var signals = signals
        var received: Int32 = 0
        repeat {
            sigwait(&signals, &received)
            if received == SIGHUP { onHangUp() }
        } while received == SIGHUP
        return received
    }
}
