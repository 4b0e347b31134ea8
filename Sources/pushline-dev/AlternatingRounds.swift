import Runtime

/// Ways of doing the same work, timed on one thread in alternating rounds so that each sees the
/// same machine: `pushline-dev bench enrichment` and `bench digest`.
enum AlternatingRounds {
    /// One way's total over the rounds: how many times its work ran, and in how long.
    struct Total {
        var runs = 0
        var elapsed = Duration.zero

        /// Runs per second.
        var rate: Double { Double(runs) / elapsed.inSeconds }
        /// Nanoseconds per run.
        var nanosecondsPerRun: Double { elapsed.inSeconds * 1e9 / Double(runs) }
    }

    /// Runs each of `ways` in turn for `perWay / rounds`, `rounds` times, and returns their totals
    /// in order. A way's work is handed the number of its run within the round (0, 1, …) and runs in
    /// chunks of 100 between reads of the clock; what it returns is kept, so that the optimiser
    /// cannot drop the work.
    static func measure<Value>(rounds: Int, perWay: Duration, _ ways: [(Int) throws -> Value]) throws -> [Total] {
        let roundDuration = perWay / rounds
        let clock = MonotonicClock.system
        var totals = Array(repeating: Total(), count: ways.count)
        var last: Value?
        for _ in 0..<rounds {
            for (index, work) in ways.enumerated() {
                let start = clock.now
                var runs = 0
                while clock.now - start < roundDuration {
                    for run in runs..<(runs + 100) { last = try work(run) }
                    runs += 100
                }
                totals[index].runs += runs
                totals[index].elapsed += clock.now - start
            }
        }
        withExtendedLifetime(last) {}
        return totals
    }
}
