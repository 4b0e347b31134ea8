import Runtime

extension WorkerLoop.StateMachine {
    /// How many batches of the lightest lanes may be out (claimed or at the sender): `concurrency`,
    /// or fewer (`policies.lanes.lightest_batches`) while a lane above them had a delivery within
    /// `lightest_quiet`. Under a bulk backlog bulk otherwise keeps both cores busy — the worker,
    /// apns-sim or APNs' connection, Redis — and each hop of a transactional delivery waits for a
    /// CPU; with fewer bulk batches out while transactional work trickles, it waits less, and bulk
    /// drains slower by what the figures show (docs/policies.md, "Bulk leaves room").
    ///
    /// Pure: the time comes with the calls.
    struct LightestSlots {
        private let concurrency: Int
        private let whileAboveActive: Int
        private let quiet: Duration
        /// When a delivery of a lane above last joined its lane; nil before the first.
        private var aboveSeenAt: MonotonicClock.Instant?
        /// The slots: `whileAboveActive` from a lane above's delivery until an ``update(now:)`` finds it `quiet` ago.
        var current: Int { aboveSeenAt == nil ? concurrency : whileAboveActive }

        /// - Parameters:
        ///   - bound: `lightest_batches`; nil: no bound (always `concurrency`).
        init(concurrency: Int, bound: Int?, quiet: Duration) {
            self.concurrency = concurrency
            whileAboveActive = min(concurrency, bound ?? concurrency)
            self.quiet = quiet
        }

        /// A delivery of a lane above the lightest joined its lane at `now`.
        mutating func aboveSeen(now: MonotonicClock.Instant) {
            aboveSeenAt = now
        }

        /// The slots at `now`: back to `concurrency` once the lanes above have been quiet for `quiet`.
        mutating func update(now: MonotonicClock.Instant) {
            guard let seen = aboveSeenAt, now >= seen + quiet else { return }
            aboveSeenAt = nil
        }
    }
}
