internal import COpenSSL

/// OpenSSL's clean-up at process exit, turned off. By default OpenSSL frees its global state (its
/// locks, providers and algorithm tables) from an `atexit` handler, so a thread still inside OpenSSL
/// when the process calls `exit` runs into a freed lock and the process ends on SIGSEGV instead of
/// its status (`ShutdownUnderFaultsTests`, 2026-12-04: exit 139 after a clean stop, a worker's send
/// still running; the worker's stop now waits for its own, and since the same day every way out of
/// `pushline run`, a failed start too, stops its senders' loops). Kept for threads not looked into
/// (librdkafka's). The kernel takes the memory back at exit in any case.
public enum OpenSSLCleanupAtExit {
    /// Call first in `main`, before anything uses OpenSSL: only the first initialisation decides
    /// whether the handler is registered. False when OpenSSL refused.
    @discardableResult
    public static func disable() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}
