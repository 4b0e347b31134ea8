import Foundation
import Runtime
import Synchronization

/// The time limit of ``ExternalCommand/run(_:_:standardInput:environment:currentDirectory:timeLimit:)``:
/// when it passes before the program is done, `SIGKILL` to the program's process group.
final class CommandTimeLimit: Sendable {
    let duration: Duration
    /// Whether the program is still running, was killed, or is done; the kill happens under the
    /// lock, so it never comes after ``finish()`` (when the group's id may name other processes).
    private let state = Mutex(State.running)

    private enum State { case running, killed, finished }

    init(_ duration: Duration, processGroup: pid_t) {
        self.duration = duration
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(duration.wholeMilliseconds)) { [self] in
            state.withLock { state in
                guard state == .running else { return }
                kill(-processGroup, SIGKILL)
                state = .killed
            }
        }
    }

    /// Marks the program done (it was reaped); whether the time limit killed it.
    func finish() -> Bool {
        state.withLock { state in
            defer { state = .finished }
            return state == .killed
        }
    }
}
