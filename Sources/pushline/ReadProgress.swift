import CLI
import Runtime

/// Progress of a long read on standard error, at most once a second and once at the end:
/// `pushline outcomes report: pushline.outcomes 1200/5000 records`.
struct ReadProgress {
    private let prefix: String
    private var nextReport = MonotonicClock.now + .seconds(1)
    private var reportedEnd = false

    init(command: String, topic: String) {
        prefix = "pushline \(command): \(topic)"
    }

    mutating func report(done: Int64, total: Int64) {
        let now = MonotonicClock.now
        guard now >= nextReport || (done == total && !reportedEnd) else { return }
        nextReport = now + .seconds(1)
        reportedEnd = done == total
        printError("\(prefix) \(done)/\(total) records")
    }
}
