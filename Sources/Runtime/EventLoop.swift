#if canImport(Glibc)
import Glibc
#endif
internal import CLinux
import Synchronization

/// Something that owns a file descriptor registered with an ``EventLoop``. Called on the loop's
/// thread only.
public protocol FileDescriptorHandler: AnyObject {
    /// The descriptor can be read (or has an error or hang-up pending, which a read reveals).
    func readable()
    /// The descriptor can be written again after a short write.
    func writable()
}

/// Readiness a handler is interested in.
public struct IOInterest: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let read = IOInterest(rawValue: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
    public static let write = IOInterest(rawValue: EPOLLOUT.rawValue)
}

/// A thread that owns an epoll instance: it runs I/O handlers, timers, and work handed to it from
/// other threads through ``execute(_:)`` (a queue plus a ``WakeUp``).
///
/// Everything registered with a loop, and every timer action, runs on the loop's thread, so objects
/// that are not thread-safe (nghttp2 sessions, OpenSSL `SSL`) can be confined to one loop.
public final class EventLoop: @unchecked Sendable {
    // Safe to share: `pending`, `stopping` and `threadID` are synchronised; every other stored
    // property is touched only on the loop thread after `init` returns.
    public let name: String
    private let epollDescriptor: Int32
    private let wakeUp: WakeUp
    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let stopping = Atomic<Bool>(false)
    private let threadID = Mutex<pthread_t?>(nil)
    /// Each registered descriptor's handler, with the registration's number: epoll events carry
    /// both, so an event that was already in hand when its descriptor was unregistered, closed and
    /// reused by a new registration (within one batch) does not reach the new handler.
    private var handlers: [Int32: (handler: FileDescriptorHandler, registration: UInt32)] = [:]
    private var nextRegistration: UInt32 = 1
    private var timers = TimerQueue()
    private var cancelledTimers = Set<UInt64>()
    private var nextTimerID: UInt64 = 1
    private let thread = ServiceThread()
    private var deferred: [() -> Void] = []

    /// Starts a loop on a new thread.
    public init(name: String) throws(SystemError) {
        self.name = name
        epollDescriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollDescriptor >= 0 else { throw SystemError("epoll_create1") }
        do {
            wakeUp = try WakeUp()
        } catch {
            close(epollDescriptor)
            throw error
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: Self.eventData(wakeUp.descriptor, registration: 0))
        // Every property is set here: a throw runs `deinit`, which closes the epoll descriptor.
        guard epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, wakeUp.descriptor, &event) == 0 else {
            throw SystemError("epoll_ctl(eventfd)")
        }
        // The thread keeps the loop alive until `run` returns.
        thread.start(name: name) { [self] in run() }
    }

    deinit {
        close(epollDescriptor)
    }

    /// Whether the caller is running on this loop's thread.
    public var inEventLoop: Bool {
        threadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Runs `task` on the loop thread, soon. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(task) }
        wakeUp.signal()
    }

    /// Stops the loop after the work already queued, and waits for its thread to end (unless called
    /// from the loop itself). Handlers still registered are dropped.
    public func shutdown() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
        guard !inEventLoop else { return }
        try? thread.join()  // `run` throws nothing; a second shutdown returns at once
    }

    // MARK: Loop-thread API

    /// Watches `descriptor` for `interest`; `handler` is kept until ``unregister(_:)``.
    public func register(_ descriptor: Int32, interest: IOInterest, handler: FileDescriptorHandler) throws(SystemError) {
        precondition(inEventLoop, "register must be called on the event loop")
        let registration = nextRegistration
        nextRegistration = nextRegistration == .max ? 1 : nextRegistration + 1
        var event = epoll_event(events: interest.rawValue, data: Self.eventData(descriptor, registration: registration))
        guard epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, descriptor, &event) == 0 else { throw SystemError("epoll_ctl(ADD)") }
        handlers[descriptor] = (handler, registration)
    }

    /// Changes what a registered descriptor is watched for.
    public func modify(_ descriptor: Int32, interest: IOInterest) {
        guard let registration = handlers[descriptor]?.registration else { return }
        var event = epoll_event(events: interest.rawValue, data: Self.eventData(descriptor, registration: registration))
        _ = epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, descriptor, &event)
    }

    /// Stops watching `descriptor` and releases its handler. The caller closes the descriptor.
    public func unregister(_ descriptor: Int32) {
        _ = epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil)
        handlers[descriptor] = nil
    }

    /// Runs `action` on the loop after `milliseconds`. Loop thread only; cancel with the returned id.
    @discardableResult
    public func schedule(afterMilliseconds milliseconds: Int, _ action: @escaping () -> Void) -> UInt64 {
        precondition(inEventLoop, "schedule must be called on the event loop")
        let id = nextTimerID
        nextTimerID += 1
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(milliseconds, 0)) * 1_000_000
        timers.insert(deadline: deadline, id: id, action: action)
        return id
    }

    /// Runs `action` on the loop after the current batch of I/O events and timers (loop thread
    /// only): how a connection coalesces the writes that many callbacks asked for into one.
    public func deferUntilBatchEnd(_ action: @escaping () -> Void) {
        precondition(inEventLoop, "deferUntilBatchEnd must be called on the event loop")
        deferred.append(action)
    }

    /// Cancels a timer that has not fired yet. Loop thread only.
    public func cancelTimer(_ id: UInt64) {
        cancelledTimers.insert(id)
    }

    // MARK: The loop

    private func run() {
        threadID.withLock { $0 = pthread_self() }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let count = epoll_wait(epollDescriptor, &events, Int32(events.count), waitTimeoutMilliseconds())
            if count < 0 && errno != EINTR { break }
            for index in 0..<Int(max(count, 0)) {
                dispatch(events[index])
            }
            runDueTimers()
            runPendingTasks()
            runDeferred()
        }
        runPendingTasks()
        handlers.removeAll()
        threadID.withLock { $0 = nil }
    }

    private func dispatch(_ event: epoll_event) {
        let descriptor = Int32(truncatingIfNeeded: event.data.u64 & 0xFFFF_FFFF)
        let registration = UInt32(truncatingIfNeeded: event.data.u64 >> 32)
        if descriptor == wakeUp.descriptor {
            wakeUp.drain()
            return
        }
        let readiness = event.events
        if readiness & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            handler(of: descriptor, registration: registration)?.readable()
        }
        if readiness & EPOLLOUT.rawValue != 0 {
            handler(of: descriptor, registration: registration)?.writable()
        }
    }

    /// The handler of `descriptor` if it is still the registration the event was meant for.
    private func handler(of descriptor: Int32, registration: UInt32) -> FileDescriptorHandler? {
        guard let registered = handlers[descriptor], registered.registration == registration else { return nil }
        return registered.handler
    }

    /// An event's data: the descriptor in the low 32 bits, the registration's number above.
    private static func eventData(_ descriptor: Int32, registration: UInt32) -> epoll_data_t {
        epoll_data_t(u64: UInt64(registration) << 32 | UInt64(UInt32(bitPattern: descriptor)))
    }

    private func waitTimeoutMilliseconds() -> Int32 {
        if !deferred.isEmpty || pending.withLock({ !$0.isEmpty }) { return 0 }
        guard let deadline = timers.earliestDeadline else { return -1 }
        return Int32(clamping: MonotonicClock.milliseconds(until: deadline))
    }

    private func runDueTimers() {
        let now = MonotonicClock.nanoseconds()
        while let entry = timers.popDue(now: now) {
            if cancelledTimers.remove(entry.id) != nil { continue }
            entry.action()
        }
    }

    private func runDeferred() {
        while !deferred.isEmpty {
            let actions = deferred
            deferred.removeAll(keepingCapacity: true)
            for action in actions { action() }
        }
    }

    private func runPendingTasks() {
        let tasks = pending.withLock { tasks in
            let taken = tasks
            tasks.removeAll(keepingCapacity: true)
            return taken
        }
        for task in tasks { task() }
    }
}
