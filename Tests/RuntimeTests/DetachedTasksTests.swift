import Foundation
import PushlineTestKit
import Runtime
import Synchronization
import Testing

// The waits are blocking, as on the worker's thread: they run on a thread of their own, so that the
// tasks have Swift's cooperative pool to themselves.
@Suite("Detached tasks")
struct DetachedTasksTests {
    struct NotStarted: Error {}

    @Test("cancelAndWait cancels the tasks still running and returns only once every one of them has ended")
    func cancelAndWaitWaitsForEveryTask() async throws {
        let endedCancelled = try await DedicatedThread.run(timeout: .seconds(30)) {
            let tasks = DetachedTasks()
            let started = Semaphore()
            let endedCancelled = Atomic<Int>(0)
            for _ in 0..<5 {
                tasks.start {
                    started.signal()
                    // Long enough that only the cancellation ends it within the test.
                    try? await Task.sleep(for: .seconds(600))
                    // Work after the wake-up, which cancelAndWait must wait for too.
                    usleep(50_000)
                    if Task.isCancelled { endedCancelled.add(1, ordering: .sequentiallyConsistent) }
                }
            }
            for _ in 0..<5 where !started.wait(milliseconds: 10_000) { throw NotStarted() }
            tasks.cancelAndWait()
            return endedCancelled.load(ordering: .sequentiallyConsistent)
        }
        #expect(endedCancelled == 5)
    }

    @Test("after a cancelAndWait has returned, a later cancelAndWait waits for a task started in between")
    func tasksStartedLaterAreWaitedFor() async throws {
        let ran = try await DedicatedThread.run(timeout: .seconds(30)) {
            let tasks = DetachedTasks()
            let ran = Atomic<Int>(0)
            let first = Semaphore()
            tasks.start {
                ran.add(1, ordering: .sequentiallyConsistent)
                first.signal()
            }
            guard first.wait(milliseconds: 10_000) else { throw NotStarted() }
            tasks.cancelAndWait()
            tasks.start {
                usleep(50_000)
                ran.add(1, ordering: .sequentiallyConsistent)
            }
            tasks.cancelAndWait()
            return ran.load(ordering: .sequentiallyConsistent)
        }
        #expect(ran == 2)
    }
}
