import Dispatch
import Glibc

/// Reloads a ``CatalogStore`` when a file under its template or locale directories changes
/// (inotify) and when asked (``reload()``: `pushline run` asks on SIGHUP, which its one signal
/// watcher takes), coalescing a burst of changes (an editor's save, a deploy) into one reload.
public final class CatalogReloader: @unchecked Sendable {
    // Sendable because every mutable property is read and written only on `queue`.
    /// How long to wait after a change for the burst to end.
    public static let settleDelay = DispatchTimeInterval.milliseconds(200)

    /// What started a reload: the first cause of a burst.
    public enum Trigger: String, Sendable {
        /// A file or directory under the watched directories changed.
        case fileChange = "file_change"
        /// ``reload()`` was called: SIGHUP, in `pushline run`.
        case signal
    }

    /// One reload attempt: what started it and what it gave.
    public struct Attempt: Sendable {
        public let trigger: Trigger
        /// Success: the new catalog is in force. Failure: the previous one stays.
        public let result: Result<Void, CatalogLoadError>
    }

    private let store: CatalogStore
    private let queue = DispatchQueue(label: "pushline.catalog-reloader")
    private let onReload: @Sendable (Attempt) -> Void
    private let inotify: Int32
    private var fileSource: (any DispatchSourceRead)?
    /// Watch descriptors by directory.
    private var watches: [String: Int32] = [:]
    private var pendingTrigger: Trigger?

    /// Starts watching. `onReload` is called on a private queue after every reload attempt, so
    /// the caller can log it and count it.
    public init(store: CatalogStore, onReload: @escaping @Sendable (Attempt) -> Void) throws(CatalogLoadError) {
        self.store = store
        self.onReload = onReload
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            throw CatalogLoadError(.unreadableFile, file: store.templatesDirectory, "inotify_init1 failed (errno \(errno))")
        }
        queue.sync {
            let files = DispatchSource.makeReadSource(fileDescriptor: inotify, queue: queue)
            files.setEventHandler { [weak self] in
                guard let self, drainEvents() else { return }
                scheduleReload(.fileChange)
            }
            files.setCancelHandler { [inotify] in close(inotify) }
            files.resume()
            fileSource = files
            watchDirectories()
        }
    }

    /// Reloads the files after ``settleDelay`` (joining a reload already scheduled), even if no
    /// change was seen: for SIGHUP, and for file systems inotify does not see changes on.
    public func reload() {
        queue.async { [weak self] in self?.scheduleReload(.signal) }
    }

    /// Stops watching and closes the inotify descriptor; no reload starts after this returns.
    public func cancel() {
        queue.sync {
            fileSource?.cancel()
            fileSource = nil
        }
    }

    deinit {
        fileSource?.cancel()
    }

    /// Watches both directories and each app's locale directory (inotify is not recursive);
    /// called again after every reload, since directories may have come or gone. A directory
    /// watched already keeps its watch (adding it again changes nothing and queues no event);
    /// only the watches of directories gone are removed.
    private func watchDirectories() {
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
        var directories = [store.templatesDirectory, store.localesDirectory]
        for app in store.catalog.appIDs { directories.append("\(store.localesDirectory)/\(app)") }
        for (directory, watch) in watches where !directories.contains(directory) {
            inotify_rm_watch(inotify, watch)
            watches[directory] = nil
        }
        for directory in directories {
            let watch = inotify_add_watch(inotify, directory, mask)
            if watch >= 0 { watches[directory] = watch }
        }
    }

    /// Reads every pending event; returns whether one was a change, and not only the `IN_IGNORED`
    /// that removing a watch (``watchDirectories()``), or its directory going, queues: that one
    /// must not start a reload, or every reload would start the next.
    private func drainEvents() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        let header = MemoryLayout<inotify_event>.size
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return changed }
            var offset = 0
            while offset + header <= count {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                if event.mask & UInt32(IN_IGNORED) == 0 { changed = true }
                offset += header + Int(event.len)
            }
        }
    }

    private func scheduleReload(_ trigger: Trigger) {
        guard fileSource != nil, pendingTrigger == nil else { return }
        pendingTrigger = trigger
        queue.asyncAfter(deadline: .now() + Self.settleDelay) { [weak self] in
            guard let self, fileSource != nil, let trigger = pendingTrigger else { return }
            pendingTrigger = nil
            let result: Result<Void, CatalogLoadError>
            do throws(CatalogLoadError) {
                try store.reload()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            watchDirectories()
            onReload(Attempt(trigger: trigger, result: result))
        }
    }
}
