import Foundation

/// SIGINT and SIGTERM, blocked from creation on. Create it before starting any thread: threads
/// inherit the mask, so the signals stay pending until ``wait()`` takes them and the command can
/// shut down cleanly.
struct TerminationSignals {
    private let signals: sigset_t

    init() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        self.signals = signals
    }

    /// Blocks until SIGINT or SIGTERM arrives; returns which.
    func wait() -> Int32 {
        var signals = signals
        var received: Int32 = 0
        sigwait(&signals, &received)
        return received
    }
}
