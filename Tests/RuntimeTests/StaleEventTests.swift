import Glibc
import Runtime
import Synchronization
import Testing

/// A handler that runs a closure when its descriptor is readable.
private final class ReadableHandler: FileDescriptorHandler {
    let onReadable: () -> Void

    init(_ onReadable: @escaping () -> Void) {
        self.onReadable = onReadable
    }

    func readable() { onReadable() }
    func writable() {}
}

@Suite("Event loop: descriptors reused within one batch of events")
struct StaleEventTests {
    /// What happened on the loop.
    struct Observed {
        var swapped = false
        var descriptorReused = false
        var newHandlerCalled = false
    }

    @Test("an event in hand for a descriptor that an earlier handler of the batch closed and reused does not reach the new handler")
    func staleEventSkipsNewRegistration() throws {
        let loop = try EventLoop(name: "stale-events")
        defer { loop.shutdown() }
        var first: [Int32] = [0, 0]
        var second: [Int32] = [0, 0]
        #expect(pipe(&first) == 0 && pipe(&second) == 0)
        // Both readable before the loop watches them: one epoll_wait reports both.
        var byte: UInt8 = 1
        _ = write(first[1], &byte, 1)
        _ = write(second[1], &byte, 1)
        let observed = Mutex(Observed())
        let done = Semaphore()
        let readEnds = [first[0], second[0]]
        let box = LoopBox(loop)
        loop.execute {
            for (index, descriptor) in readEnds.enumerated() {
                let other = readEnds[1 - index]
                try? box.loop.register(descriptor, interest: .read, handler: ReadableHandler {
                    guard !observed.withLock({ $0.swapped }) else { return }
                    // The first handler of the batch closes the other descriptor; a new pipe takes
                    // its number, with a handler of its own and nothing to read. `dup2` closes and
                    // reuses the number in one step: no other thread of the process can take it
                    // between (as it could between a `close` and the next `pipe`).
                    box.loop.unregister(other)
                    var fresh: [Int32] = [0, 0]
                    let reused = pipe(&fresh) == 0 && dup2(fresh[0], other) == other
                    if reused { close(fresh[0]) }
                    try? box.loop.register(other, interest: .read, handler: ReadableHandler {
                        observed.withLock { $0.newHandlerCalled = true }
                    })
                    observed.withLock {
                        $0.swapped = true
                        $0.descriptorReused = reused
                    }
                    box.loop.schedule(afterMilliseconds: 100) { done.signal() }
                })
            }
        }
        #expect(done.wait(milliseconds: 5000))
        let result = observed.withLock { $0 }
        #expect(result.swapped)
        #expect(result.descriptorReused, "dup2 did not give the new pipe the closed descriptor's number; nothing was tested")
        #expect(!result.newHandlerCalled, "the stale event of the closed descriptor reached the new registration")
    }
}

/// Hands the loop to its own closures (they run on the loop's thread).
private final class LoopBox: @unchecked Sendable {
    let loop: EventLoop
    init(_ loop: EventLoop) { self.loop = loop }
}
