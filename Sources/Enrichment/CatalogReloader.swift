import Dispatch
import Glibc

/// Reloads a ``CatalogStore`` on SIGHUP and when a file under its template or locale directories
/// changes (inotify), coalescing a burst of changes (an editor's save, a deploy) into one reload.
public final class CatalogReloader: @unchecked Sendable {
    // Sendable because every mutable property is read and written only on `queue`.
    /// How long to wait after a change for the burst to end.
    public static let settleDelay = DispatchTimeInterval.milliseconds(200)

    private let store: CatalogStore
    private let queue = DispatchQueue(label: "pushline.catalog-reloader")
    private let onReload: @Sendable (Result<Void, CatalogLoadError>) -> Void
    private let inotify: Int32
    private var signalSource: (any DispatchSourceSignal)?
    private var fileSource: (any DispatchSourceRead)?
    private var watches: [Int32] = []
    private var reloadPending = false

    /// Starts watching. `onReload` is called on a private queue after every reload attempt, so
    /// the caller can log a rejected configuration. SIGHUP's default action (exit) is replaced.
    public init(store: CatalogStore, onReload: @escaping @Sendable (Result<Void, CatalogLoadError>) -> Void) throws(CatalogLoadError) {
        self.store = store
        self.onReload = onReload
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            throw CatalogLoadError(.unreadableFile, file: store.templatesDirectory, "inotify_init1 failed (errno \(errno))")
        }
        Self.replaceHangUpDefault()
        queue.sync {
            let signals = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
            signals.setEventHandler { [weak self] in self?.scheduleReload() }
            signals.resume()
            signalSource = signals
            let files = DispatchSource.makeReadSource(fileDescriptor: inotify, queue: queue)
            files.setEventHandler { [weak self] in
                self?.drainEvents()
                self?.scheduleReload()
            }
            files.setCancelHandler { [inotify] in close(inotify) }
            files.resume()
            fileSource = files
            watchDirectories()
        }
    }

    /// SIGHUP's default action ends the process. Replaced once per process, before the first signal
    /// source: libdispatch installs its own handler on registration, which a later `signal` call
    /// would remove.
    private static let hangUpDefaultReplaced: Bool = {
        signal(SIGHUP, SIG_IGN)
        return true
    }()

    private static func replaceHangUpDefault() {
        _ = hangUpDefaultReplaced
    }

    /// Stops watching and closes the inotify descriptor; no reload starts after this returns.
    public func cancel() {
        queue.sync {
            signalSource?.cancel()
            fileSource?.cancel()
            signalSource = nil
            fileSource = nil
        }
    }

    deinit {
        signalSource?.cancel()
        fileSource?.cancel()
    }

    /// Watches both directories and each app's locale directory (inotify is not recursive);
    /// called again after every reload, since directories may have come or gone.
    private func watchDirectories() {
        for watch in watches { inotify_rm_watch(inotify, watch) }
        watches = []
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
        var directories = [store.templatesDirectory, store.localesDirectory]
        for app in store.catalog.appIDs { directories.append("\(store.localesDirectory)/\(app)") }
        for directory in directories {
            let watch = inotify_add_watch(inotify, directory, mask)
            if watch >= 0 { watches.append(watch) }
        }
    }

    private func drainEvents() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func scheduleReload() {
        guard !reloadPending else { return }
        reloadPending = true
        queue.asyncAfter(deadline: .now() + Self.settleDelay) { [weak self] in
            guard let self, fileSource != nil else { return }
            reloadPending = false
            let result: Result<Void, CatalogLoadError>
            do throws(CatalogLoadError) {
                try store.reload()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            watchDirectories()
            onReload(result)
        }
    }
}
