import CLinux
import Foundation
import Runtime
import Synchronization
import Testing

@Suite("Service thread")
struct ServiceThreadTests {
    struct Failure: Error, Equatable {}

    @Test("the body runs on a thread named for the system (its first 15 bytes); join waits for its end, any number of times")
    func joinWaitsForTheBody() throws {
        let service = ServiceThread()
        let release = Semaphore()
        let threadName = Mutex<String?>(nil)
        service.start(name: "pushline-test-service") {
            threadName.withLock { $0 = currentThreadName() }
            release.wait()
        }
        #expect(try service.join(milliseconds: 50) == false, "join returned while the body was still waiting")
        release.signal()
        try service.join()
        try service.join()
        #expect(try service.join(milliseconds: 0))
        #expect(threadName.withLock { $0 } == "pushline-test-s")
    }

    @Test("the error the body ended on reaches whenFailed once, on the service's thread, and every join")
    func failureIsKept() throws {
        let service = ServiceThread()
        let reported = Mutex<[String?]>([])
        service.start(name: "pushline-failing-service", { throw Failure() }, whenFailed: { error in
            #expect(error is Failure)
            reported.withLock { $0.append(currentThreadName()) }
        })
        #expect(throws: Failure.self) { try service.join() }
        #expect(throws: Failure.self) { _ = try service.join(milliseconds: 10) }
        #expect(reported.withLock { $0 } == ["pushline-failin"])
    }
}

/// The calling thread's name as the system knows it (`/proc/self/task/<tid>/comm`).
private func currentThreadName() -> String {
    var name = [UInt8](repeating: 0, count: 16)
    name.withUnsafeMutableBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { _ = pthread_getname_np(pthread_self(), $0.baseAddress, $0.count) }
    }
    return String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
}
