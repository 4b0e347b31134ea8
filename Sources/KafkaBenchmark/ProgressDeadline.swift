import Runtime

/// Fails a benchmark loop that stops making progress, instead of letting it hang: a ``Deadline``
/// set a minute ahead again at each sign of progress.
struct ProgressDeadline {
    private let what: String
    private static let patience = Duration.seconds(60)
    private var lastCount = -1
    private var deadline = Deadline(after: patience)

    init(what: String) {
        self.what = what
    }

    /// Throws once `count` has not grown for a minute.
    mutating func check(_ count: Int) throws(KafkaBenchmarkError) {
        if count != lastCount {
            lastCount = count
            deadline = Deadline(after: Self.patience)
        } else if deadline.hasPassed {
            throw KafkaBenchmarkError("no progress for \(Self.patience) waiting for \(what) (at \(count))")
        }
    }
}
