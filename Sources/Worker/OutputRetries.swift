import Runtime

/// Records Kafka refused for a reason that may pass (a full queue, a broker away), waiting to be
/// produced again as they were. They go in rounds: the first refusal after a round opens the next,
/// due after a delay that doubles with each round since Kafka last acknowledged a record, from
/// 100 ms to 5 s, without jitter (they are one producer's own records). Lives on the worker's thread.
struct OutputRetries {
    private var waiting: [WorkerOutput] = []
    /// When `waiting` is due; nil exactly while `waiting` is empty.
    private var dueAt: MonotonicClock.Instant?
    private var rounds = 0

    var isEmpty: Bool { waiting.isEmpty }

    /// Adds a refused record; returns whether it opened a round.
    mutating func add(_ output: WorkerOutput, now: MonotonicClock.Instant) -> Bool {
        waiting.append(output)
        guard dueAt == nil else { return false }
        dueAt = now + Backoff.worker.delay(beforeRetry: rounds)
        return true
    }

    /// Kafka acknowledged a record: the next round waits the shortest delay again.
    mutating func acknowledged() {
        rounds = 0
    }

    /// The round's records once it is due by `now`, taken; nil before.
    mutating func takeDue(now: MonotonicClock.Instant) -> [WorkerOutput]? {
        guard let dueAt, now >= dueAt else { return nil }
        defer {
            waiting = []
            self.dueAt = nil
            rounds += 1
        }
        return waiting
    }

    /// Drops the records `shouldBeDropped` picks; with none left, no round is due.
    mutating func removeAll(where shouldBeDropped: (WorkerOutput) -> Bool) {
        waiting.removeAll(where: shouldBeDropped)
        if waiting.isEmpty { dueAt = nil }
    }
}
