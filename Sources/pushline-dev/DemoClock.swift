import Runtime
import Synchronization

/// The demo worker's wall clock: the system's, plus what the demo skipped to end its quiet hours
/// at once (a few minutes at most) instead of waiting for them.
final class DemoClock: Sendable {
    /// Nanoseconds added to the system's clock.
    private let skipped = Atomic<Int64>(0)

    /// The clock to hand to the worker (`WorkerConfiguration.wallClock`).
    var wallClock: WallClock {
        WallClock { [self] in WallClock.system.nanosecondsSinceEpoch() + skipped.load(ordering: .relaxed) }
    }

    /// Moves the clock forward to `milliseconds` since the epoch (not back, if it is there already).
    func skip(to milliseconds: Int64) {
        let ahead = milliseconds - wallClock.millisecondsSinceEpoch()
        if ahead > 0 { skipped.add(ahead * 1_000_000, ordering: .relaxed) }
    }
}
