import Foundation

/// A bound on how long a wait may take, so a test, the demo or a benchmark that cannot make
/// progress fails with a message naming what it was waiting for instead of hanging.
public struct Deadline: Sendable {
    private let end: ContinuousClock.Instant
    private let timeout: Duration
    private let what: String

    /// - Parameter what: what is awaited, as the failure message should name it.
    public init(_ timeout: Duration, waitingFor what: String) {
        self.end = .now + timeout
        self.timeout = timeout
        self.what = what
    }

    public var hasPassed: Bool { ContinuousClock.now >= end }

    /// Throws a ``LocalStackError`` naming what was awaited once the deadline has passed.
    public func check() throws {
        if hasPassed { throw LocalStackError("timed out after \(timeout) waiting for \(what)") }
    }

    /// Checks `condition` every 10 ms until it holds; throws when the deadline passes first.
    public static func wait(_ timeout: Duration = .seconds(30), for what: String, until condition: () throws -> Bool) throws {
        let deadline = Deadline(timeout, waitingFor: what)
        while try !condition() {
            try deadline.check()
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
