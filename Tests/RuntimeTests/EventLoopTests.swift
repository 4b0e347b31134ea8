import Glibc
import Runtime
import Synchronization
import Testing

@Suite("Event loop")
struct EventLoopTests {
    @Test("work handed over from another thread runs on the loop thread")
    func executeRunsOnLoop() throws {
        let loop = try EventLoop(name: "test")
        defer { loop.shutdown() }
        let ranOnLoop = Mutex<Bool?>(nil)
        let done = Semaphore()
        loop.execute {
            ranOnLoop.withLock { $0 = loop.inEventLoop }
            done.signal()
        }
        #expect(done.wait(milliseconds: 5000))
        #expect(ranOnLoop.withLock { $0 } == true)
        #expect(!loop.inEventLoop)
    }

    @Test("tasks from one thread run in the order they were handed over")
    func executeKeepsOrder() throws {
        let loop = try EventLoop(name: "test")
        defer { loop.shutdown() }
        let seen = Mutex<[Int]>([])
        let done = Semaphore()
        for index in 0..<1000 {
            loop.execute {
                seen.withLock { $0.append(index) }
                if index == 999 { done.signal() }
            }
        }
        #expect(done.wait(milliseconds: 5000))
        #expect(seen.withLock { $0 } == Array(0..<1000))
    }

    @Test("timers fire by deadline, ties in scheduling order, and cancelled ones never fire")
    func timersOrderAndCancel() throws {
        let loop = try EventLoop(name: "test")
        defer { loop.shutdown() }
        let fired = Mutex<[String]>([])
        let done = Semaphore()
        loop.execute {
            loop.schedule(afterMilliseconds: 30) { fired.withLock { $0.append("late") }; done.signal() }
            loop.schedule(afterMilliseconds: 10) { fired.withLock { $0.append("early-1") } }
            loop.schedule(afterMilliseconds: 10) { fired.withLock { $0.append("early-2") } }
            let cancelled = loop.schedule(afterMilliseconds: 5) { fired.withLock { $0.append("cancelled") } }
            loop.cancelTimer(cancelled)
        }
        #expect(done.wait(milliseconds: 5000))
        #expect(fired.withLock { $0 } == ["early-1", "early-2", "late"])
    }

    @Test("shutdown runs the work already queued and stops the thread")
    func shutdownDrainsQueue() throws {
        let loop = try EventLoop(name: "test")
        let ran = Atomic<Int>(0)
        for _ in 0..<100 { loop.execute { ran.add(1, ordering: .relaxed) } }
        loop.shutdown()
        #expect(ran.load(ordering: .relaxed) == 100)
    }
}

@Suite("Socket")
struct SocketTests {
    @Test("listening on port 0 binds a free port that accepts connections")
    func listenOnFreePort() throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        #expect(port > 0)
        let client = try Socket.connect(host: "127.0.0.1", port: port)
        var accepted: Int32?
        for _ in 0..<500 where accepted == nil {
            accepted = Socket.accept(listener)
            if accepted == nil { usleep(2000) }
        }
        #expect(accepted != nil)
        for descriptor in [client, listener] + (accepted.map { [$0] } ?? []) { close(descriptor) }
    }

    @Test("a name that does not resolve is an error naming the host")
    func unresolvableHost() {
        let error = #expect(throws: SystemError.self) { try Socket.connect(host: "no-such-host.invalid", port: 443) }
        #expect(error?.description.contains("no-such-host.invalid") == true)
    }
}
