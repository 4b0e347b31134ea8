import Foundation
import Runtime
import Testing

@Suite("Wake-up descriptor")
struct WakeUpTests {
    /// Whether `descriptor` is readable within `milliseconds`.
    static func readable(_ descriptor: Int32, within milliseconds: Int32) -> Bool {
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, milliseconds) == 1 && watched.revents & Int16(POLLIN) != 0
    }

    @Test("unreadable until signalled; signals before a drain coalesce, and one drain makes it unreadable again")
    func signalsCoalesceUntilDrained() throws {
        let wakeUp = try WakeUp()
        #expect(!Self.readable(wakeUp.descriptor, within: 0))
        wakeUp.signal()
        wakeUp.signal()
        wakeUp.signal()
        #expect(Self.readable(wakeUp.descriptor, within: 0))
        wakeUp.drain()
        #expect(!Self.readable(wakeUp.descriptor, within: 0), "three signals needed one drain")
        wakeUp.drain()
        #expect(!Self.readable(wakeUp.descriptor, within: 0), "a drain without a signal does not block or change anything")
    }

    @Test("a signal from another thread wakes a poll waiting on the descriptor")
    func signalFromAnotherThreadWakesPoll() throws {
        let wakeUp = try WakeUp()
        let signaller = ServiceThread()
        signaller.start(name: "wake-up-test") {
            Thread.sleep(forTimeInterval: 0.05)
            wakeUp.signal()
        }
        #expect(Self.readable(wakeUp.descriptor, within: 10_000), "not woken within 10 s")
        try signaller.join()
    }
}
