internal import COpenSSL

/// OpenSSL's clean-up at process exit, turned off. By default OpenSSL frees its global state (its
/// locks, providers and algorithm tables) from an `atexit` handler, so a thread still inside OpenSSL
/// when the process calls `exit` — a sender's TLS handshake with an APNs that stopped answering, a
/// provider token being signed — runs into a freed lock and the process ends on SIGSEGV instead of
/// its status (`ShutdownUnderFaultsTests`, the simulator never answering: exit 139 after a clean
/// stop). The kernel takes the memory back at exit in any case.
public enum OpenSSLCleanupAtExit {
    /// Call first in `main`, before anything uses OpenSSL: only the first initialisation decides
    /// whether the handler is registered. False when OpenSSL refused.
    @discardableResult
    public static func disable() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}
