import Glibc
import Runtime
import Synchronization

/// Reloads a ``CatalogStore`` when a file under its template or locale directories changes
/// (inotify) and when asked (``reload()``: `pushline run` asks on SIGHUP, which its one signal
/// watcher takes), coalescing a burst of changes (an editor's save, a deploy) into one reload.
/// A `ServiceThread` of its own waits in `poll` for the inotify descriptor, a ``WakeUp`` (for
/// ``reload()`` and ``cancel()``) and the end of a burst, and reloads on that thread.
public final class CatalogReloader: Sendable {
    /// How long to wait after a change for the burst to end.
    public static let settleDelay = Duration.milliseconds(200)

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

    /// What the thread holds: not the reloader itself, so dropping the reloader stops the thread.
    private let watch: Watch
    private let thread = ServiceThread()

    /// Starts watching. `onReload` is called on the reloader's thread after every reload attempt,
    /// so the caller can log it and count it; it must not hold the reloader (its last reference
    /// dropped there would wait for its own thread).
    public init(store: CatalogStore, onReload: @escaping @Sendable (Attempt) -> Void) throws(CatalogLoadError) {
        let watch = try Watch(store: store, onReload: onReload)
        self.watch = watch
        thread.start(name: "catalog-reload") {
            do throws(CatalogLoadError) {
                try watch.run()
            } catch {
                // Watching has stopped: reported as a failed attempt, so it is logged and counted.
                onReload(Attempt(trigger: .fileChange, result: .failure(error)))
            }
        }
    }

    /// Reloads the files after ``settleDelay`` (joining a reload already scheduled), even if no
    /// change was seen: for SIGHUP, and for file systems inotify does not see changes on.
    public func reload() {
        watch.ask(Watch.Requests(reload: true))
    }

    /// Stops watching, waits for the thread (a reload under way finishes first), which closes the
    /// descriptors; no reload starts after this returns. Later calls return at once.
    public func cancel() {
        watch.ask(Watch.Requests(cancelled: true))
        try? thread.join()
    }

    deinit {
        cancel()
    }
}

/// The reloader's descriptors, its requests, and what its thread runs. The descriptors are closed
/// when the last holder (the reloader, its thread) lets go.
private final class Watch: Sendable {
    /// What other threads ask of the reloader's thread.
    struct Requests {
        var reload = false
        var cancelled = false
    }

    let store: CatalogStore
    let onReload: @Sendable (CatalogReloader.Attempt) -> Void
    let inotify: Int32
    /// Wakes the thread's `poll` after ``ask(_:)``.
    let wakeUp: WakeUp
    let requests = Mutex(Requests())
    /// The watch descriptors by directory: made in `init`, before the thread starts (so a change
    /// right after it is seen), then read and written only by the thread.
    nonisolated(unsafe) var watches: [String: Int32] = [:]

    init(store: CatalogStore, onReload: @escaping @Sendable (CatalogReloader.Attempt) -> Void) throws(CatalogLoadError) {
        // Made into locals and checked before any property is set: a throw from a fully set object
        // would run `deinit`, closing the inotify descriptor a second time.
        let wakeUp: WakeUp
        do {
            wakeUp = try WakeUp()
        } catch {
            throw CatalogLoadError(.unreadableFile, file: store.templatesDirectory, "the wake-up descriptor failed: \(error)")
        }
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            throw CatalogLoadError(.unreadableFile, file: store.templatesDirectory, "\(SystemError("inotify_init1"))")
        }
        self.store = store
        self.onReload = onReload
        self.inotify = inotify
        self.wakeUp = wakeUp
        watchDirectories()
    }

    /// Adds `asked` to the requests and wakes the thread.
    func ask(_ asked: Requests) {
        requests.withLock { requests in
            requests.reload = requests.reload || asked.reload
            requests.cancelled = requests.cancelled || asked.cancelled
        }
        wakeUp.signal()
    }

    deinit {
        close(inotify)
    }

    /// Waits for changes, requests and the end of a burst, and reloads, until cancelled. Throws
    /// when `poll` fails for another reason than a signal (it would otherwise spin): watching stops.
    func run() throws(CatalogLoadError) {
        // The first cause of the burst being waited out, and when it ends.
        var pending: (trigger: CatalogReloader.Trigger, settled: Deadline)?
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeUp.descriptor, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), pending.map { $0.settled.remainingMilliseconds } ?? -1)
            let pollError = errno
            guard ready >= 0 || pollError == EINTR, !descriptors.contains(where: { $0.revents & Int16(POLLNVAL | POLLERR) != 0 }) else {
                throw CatalogLoadError(.unreadableFile, file: store.templatesDirectory,
                                       "watching for changes stopped: poll failed (errno \(pollError)); SIGHUP no longer reloads, restart to watch again")
            }
            if descriptors[1].revents != 0 { wakeUp.drain() }
            let asked = requests.withLock { requests in
                defer { requests.reload = false }
                return requests
            }
            if asked.cancelled { break }
            if descriptors[0].revents != 0, drainEvents(), pending == nil {
                pending = (.fileChange, Deadline(after: CatalogReloader.settleDelay))
            }
            if asked.reload, pending == nil {
                pending = (.signal, Deadline(after: CatalogReloader.settleDelay))
            }
            if let burst = pending, burst.settled.hasPassed {
                pending = nil
                reload(burst.trigger)
            }
        }
    }

    private func reload(_ trigger: CatalogReloader.Trigger) {
        let result: Result<Void, CatalogLoadError>
        do throws(CatalogLoadError) {
            try store.reload()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        watchDirectories()
        onReload(CatalogReloader.Attempt(trigger: trigger, result: result))
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
}
