/// Planned deliveries waiting for a batch, in one first-in first-out queue per priority lane, taken
/// by deficit round robin: each turn a lane with work may give as many deliveries as its weight,
/// so under load every lane gets its share of the batches (`weight / sum of the weights with
/// work`) and a lane with little work is served at once, whatever the backlog of the others. A lane
/// with no work gives up its turn and keeps no credit.
///
/// Pure (no clock, no I/O): the ``WorkerLoop/StateMachine`` owns one in place of its open batch.
/// With one lane it is that open batch, first in first out.
struct LaneScheduler<Element> {
    /// Each lane's weight, by lane index (at least 1).
    let weights: [Int]
    private var queues: [[Element]]
    /// What each lane may still give in its current turn.
    private var deficits: [Int]
    /// The lane whose turn it is, and whether its turn has begun (its weight credited).
    private var turn = 0
    private var turnBegun = false
    /// Deliveries queued across all lanes.
    private(set) var count = 0
    /// Deliveries taken from each lane since the start.
    private(set) var scheduled: [Int]
    /// The lanes weighted above the lightest, heaviest first: those whose deliveries go in batches
    /// of their own (``takePriority(_:)``), never with the lightest lanes' (``takeLightest(_:)``).
    /// Empty when every lane weighs the same.
    let priorityLanes: [Int]

    /// - Parameter weights: one per lane, in lane-index order; a weight below 1 counts as 1.
    init(weights: [Int]) {
        precondition(!weights.isEmpty, "a scheduler has at least one lane")
        self.weights = weights.map { max(1, $0) }
        queues = Array(repeating: [], count: weights.count)
        deficits = Array(repeating: 0, count: weights.count)
        scheduled = deficits
        let weights = self.weights
        let lightest = weights.min() ?? 1
        priorityLanes = weights.indices.filter { weights[$0] > lightest }.sorted { weights[$0] > weights[$1] }
    }

    var isEmpty: Bool { count == 0 }

    /// Deliveries queued in `lane`.
    func count(inLane lane: Int) -> Int { queues[lane].count }

    /// Adds deliveries at the back of `lane`'s queue.
    mutating func enqueue(_ elements: [Element], lane: Int) {
        guard !elements.isEmpty else { return }
        queues[lane] += elements
        count += elements.count
    }

    /// Takes up to `limit` deliveries, lane by lane in deficit round robin order, each lane's in
    /// the order they were queued. The round carries over from one call to the next.
    mutating func take(_ limit: Int) -> [Element] {
        take(limit, among: { _ in true })
    }

    /// Takes up to `limit` deliveries of the lightest lanes only, in deficit round robin order
    /// among them: a batch the lanes above the lightest do not share (docs/policies.md).
    mutating func takeLightest(_ limit: Int) -> [Element] {
        let priorityLanes = priorityLanes
        return take(limit, among: { !priorityLanes.contains($0) })
    }

    /// Deficit round robin over the lanes `isIncluded` picks; the turn passes over the others
    /// without crediting them.
    private mutating func take(_ limit: Int, among isIncluded: (Int) -> Bool) -> [Element] {
        var taken: [Element] = []
        var left = queues.indices.reduce(0) { isIncluded($1) ? $0 + queues[$1].count : $0 }
        while taken.count < limit && left > 0 {
            if let only = onlyLaneWithWork(among: isIncluded) {
                // Nothing to share with: no need to go round.
                let given = min(limit - taken.count, queues[only].count)
                takeFront(given, of: only, into: &taken)
                left -= given
                continue
            }
            guard isIncluded(turn) else {
                turn = (turn + 1) % queues.count
                turnBegun = false
                continue
            }
            if !turnBegun {
                deficits[turn] += weights[turn]
                turnBegun = true
            }
            let given = min(deficits[turn], queues[turn].count, limit - taken.count)
            takeFront(given, of: turn, into: &taken)
            left -= given
            deficits[turn] -= given
            if queues[turn].isEmpty { deficits[turn] = 0 }
            if queues[turn].isEmpty || deficits[turn] == 0 {
                turn = (turn + 1) % queues.count
                turnBegun = false
            }
        }
        return taken
    }

    /// Deliveries queued in the lanes weighted above the lightest.
    var priorityCount: Int { priorityLanes.reduce(0) { $0 + queues[$1].count } }

    /// Takes up to `limit` deliveries from the lanes weighted above the lightest, heaviest lane
    /// first, each lane's in order: a batch of their own, which the lightest lanes do not share.
    /// Outside the round robin: no lane's credit changes.
    mutating func takePriority(_ limit: Int) -> [Element] {
        var taken: [Element] = []
        for lane in priorityLanes where taken.count < limit {
            takeFront(min(limit - taken.count, queues[lane].count), of: lane, into: &taken)
            if queues[lane].isEmpty { deficits[lane] = 0 }
        }
        return taken
    }

    /// Takes every queued delivery, in round robin order.
    mutating func takeAll() -> [Element] {
        take(count)
    }

    /// Removes the deliveries `shouldBeRemoved` picks (those of messages handed back).
    mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        for lane in queues.indices { queues[lane].removeAll(where: shouldBeRemoved) }
        count = queues.reduce(0) { $0 + $1.count }
    }

    private func onlyLaneWithWork(among isIncluded: (Int) -> Bool) -> Int? {
        var found: Int?
        for lane in queues.indices where isIncluded(lane) && !queues[lane].isEmpty {
            guard found == nil else { return nil }
            found = lane
        }
        return found
    }

    private mutating func takeFront(_ number: Int, of lane: Int, into taken: inout [Element]) {
        guard number > 0 else { return }
        if number == queues[lane].count && taken.isEmpty {
            // The whole queue is the batch: hand the array over instead of copying it.
            swap(&taken, &queues[lane])
        } else if number == queues[lane].count {
            taken += queues[lane]
            queues[lane] = []
        } else {
            taken += queues[lane][..<number]
            queues[lane].removeFirst(number)
        }
        count -= number
        scheduled[lane] += number
    }
}
