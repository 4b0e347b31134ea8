/// Fails a benchmark loop that stops making progress, instead of letting it hang.
struct ProgressDeadline {
    private let what: String
    private let patience = Duration.seconds(60)
    private var lastCount = -1
    private var lastProgress = ContinuousClock.now

    init(what: String) {
        self.what = what
    }

    /// Throws once `count` has not grown for a minute.
    mutating func check(_ count: Int) throws(KafkaBenchmarkError) {
        let now = ContinuousClock.now
        if count != lastCount {
            lastCount = count
            lastProgress = now
        } else if now - lastProgress > patience {
            throw KafkaBenchmarkError("no progress for \(patience) waiting for \(what) (at \(count))")
        }
    }
}
