import Foundation
import Runtime
import Synchronization

/// The time limit of ``ExternalCommand/run(_:_:standardInput:environment:currentDirectory:timeLimit:)``:
/// when it passes before the program is done, `SIGKILL` to the program's process group.
///
/// The timer is a dispatch timer source that ``finish()`` cancels once the program is reaped, so
/// nothing is left to fire after the program is done (a `DispatchQueue.asyncAfter` block stayed
/// queued until the deadline, holding this object). The kill and the cancel happen under one lock,
/// so no kill comes after ``finish()``: a process group's id names the program's group only while a
/// process of it lives, and once it is gone the id may be given to another. What stays open is the
/// time from Foundation reaping the program (on its own thread) to `waitUntilExit()` returning and
/// ``finish()`` taking the lock; for the id to name another group by then, process ids would have
/// to wrap round `pid_max` within it.
final class CommandTimeLimit: Sendable {
    let duration: Duration
    /// The timer while the program runs; then whether the time limit killed it.
    private let state: Mutex<State>

    private enum State {
        case running(any DispatchSourceTimer)
        case killed
        case finished
    }

    init(_ duration: Duration, processGroup: pid_t) {
        self.duration = duration
        state = Mutex(.finished)
        // The timer is made and armed under the lock (so it never leaves it): its handler, which
        // holds this object until the timer is cancelled by the kill or by `finish()`, waits for it.
        state.withLock { state in
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.setEventHandler { [self] in
                self.state.withLock { state in
                    guard case .running(let timer) = state else { return }
                    timer.cancel()
                    kill(-processGroup, SIGKILL)
                    state = .killed
                }
            }
            timer.schedule(deadline: .now() + .milliseconds(duration.wholeMilliseconds))
            timer.activate()
            state = .running(timer)
        }
    }

    /// Marks the program done (it was reaped) and cancels the timer; whether the time limit killed it.
    func finish() -> Bool {
        state.withLock { state in
            defer { state = .finished }
            switch state {
            case .running(let timer):
                timer.cancel()
                return false
            case .killed: return true
            case .finished: return false
            }
        }
    }
}
