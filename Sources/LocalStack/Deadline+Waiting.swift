// Runtime's `Deadline` is the type these waits extend: whoever imports LocalStack (the tests,
// through PushlineTestKit) names it.
@_exported import Runtime
import Foundation

/// Bounds on waits, so a test, the demo or a benchmark that cannot make progress fails with a
/// message naming what it was waiting for instead of hanging.
extension Deadline {
    /// Throws a ``LocalStackError`` naming `what` was awaited once the deadline has passed (`what`
    /// is made only then: it may say how far the wait got).
    public func check(waitingFor what: @autoclosure () -> String) throws {
        if hasPassed { throw LocalStackError("timed out after \(timeout) waiting for \(what())") }
    }

    /// Checks `condition` every `interval` (10 ms unless told: a check that starts a process asks
    /// for longer) until it holds; throws when the deadline passes first.
    public static func wait(_ timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(10), for what: String,
                            until condition: () throws -> Bool) throws {
        let deadline = Deadline(after: timeout)
        while try !condition() {
            try deadline.check(waitingFor: what)
            Thread.sleep(forTimeInterval: Double(interval.wholeMilliseconds) / 1_000)
        }
    }
}
