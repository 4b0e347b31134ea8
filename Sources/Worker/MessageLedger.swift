import Kafka

/// Which intent messages still have work outstanding, so each is completed (its offset may pass)
/// only once every delivery of it is decided and every record it produced is acknowledged by
/// Kafka. Also counts the deliveries in flight. Lives on the worker's thread.
///
/// An entry holds one count per unfinished piece: one while the message is being planned, one per
/// delivery not yet decided, one per output not yet acknowledged.
struct MessageLedger {
    typealias EntryID = Int

    /// A class, so that counting down changes the entry where it is, without copying it out of
    /// the dictionary and back.
    private final class Entry {
        let message: KafkaConsumerMessage
        var outstanding: Int
        /// Deliveries held whose deciding output Kafka has not yet acknowledged.
        var undecided = 0

        init(message: KafkaConsumerMessage, outstanding: Int) {
            self.message = message
            self.outstanding = outstanding
        }
    }

    /// What an acknowledged output finished.
    struct Acknowledged {
        let message: KafkaConsumerMessage
        /// Whether the output was a delivery's outcome.
        let decidedDelivery: Bool
        /// Whether the message is now complete.
        let completed: Bool
    }

    /// By entry id (handed out in order here).
    private var entries = SequentialTable<Entry>()
    private var nextID: EntryID = 0
    /// By producer message id (handed out in order by the worker's one producer): what each output
    /// holds, until Kafka acknowledges it; a refused one comes back with its record in the report,
    /// to be sent again or replaced.
    private var outputs = SequentialTable<WorkerOutput.Expected>()
    /// Deliveries planned whose outcome Kafka has not yet acknowledged.
    private(set) var deliveriesInFlight = 0

    /// Whether no message has work outstanding.
    var isEmpty: Bool { entries.isEmpty }

    /// Whether some record produced is not yet acknowledged by Kafka.
    var awaitsAcknowledgements: Bool { !outputs.isEmpty }

    /// Starts tracking a message, held until ``finishPlanning(_:)``.
    mutating func open(_ message: KafkaConsumerMessage) -> EntryID {
        defer { nextID += 1 }
        entries.set(Entry(message: message, outstanding: 1), at: nextID)
        return nextID
    }

    /// The message of an entry still tracked.
    func message(of entry: EntryID) -> KafkaConsumerMessage? {
        entries[entry]?.message
    }

    /// Holds the entry for `count` planned deliveries, each released by its outcome's acknowledgement.
    mutating func hold(_ entry: EntryID, deliveries count: Int) {
        guard let tracked = entries[entry] else { return }
        tracked.outstanding += count
        tracked.undecided += count
        deliveriesInFlight += count
    }

    /// Whether the entry is still tracked (not complete, not handed back).
    func isTracked(_ entry: EntryID) -> Bool {
        entries[entry] != nil
    }

    /// Stops tracking every message of `partitions` (revoked or lost: their next owner reads them
    /// again) and returns how many there were. Their deliveries no longer count as in flight, and
    /// outputs still expected for them complete nothing.
    mutating func handBack(_ partitions: Set<KafkaTopicPartition>) -> Int {
        let handedBack = entries.ids.filter { id in entries[id].map { partitions.contains($0.message.topicPartition) } ?? false }
        for id in handedBack {
            if let tracked = entries.remove(id) { deliveriesInFlight -= tracked.undecided }
        }
        return handedBack.count
    }

    /// Whether any message of `partitions` still has work outstanding.
    func tracks(any partitions: Set<KafkaTopicPartition>) -> Bool {
        entries.ids.contains { id in entries[id].map { partitions.contains($0.message.topicPartition) } ?? false }
    }

    /// Holds the entry for an output decided and about to be produced, from the moment it is
    /// decided (before the producer hands out its id, ``expect(_:_:)``), so the message cannot
    /// complete in between. A delivery's outcome is held already, by its delivery (``hold(_:deliveries:)``).
    mutating func willProduce(_ output: WorkerOutput) {
        if case .outcome(_, _, decidesDelivery: true) = output.kind { return }
        entries[output.entry]?.outstanding += 1
    }

    /// Records the producer's id of an output Kafka is to acknowledge: one decided
    /// (``willProduce(_:)``), or one sent again under a new id in the place of a refused one
    /// (``refused(_:)``) — the same record after a passing refusal, or the stand-in of one refused
    /// for good —, which holds nothing more.
    mutating func expect(_ id: KafkaProducerMessageID, _ output: WorkerOutput) {
        outputs.set(output.expected, at: Int(truncatingIfNeeded: id.rawValue))
    }

    /// Takes out an output Kafka refused; what it holds stays held until it is sent again
    /// (``expect(_:_:)``) or given up (``giveUp(_:)``).
    mutating func refused(_ id: KafkaProducerMessageID) -> WorkerOutput.Expected? {
        outputs.remove(Int(truncatingIfNeeded: id.rawValue))
    }

    /// Releases what a refused output held, as if Kafka had it: the worker goes on without it.
    /// Returns the message when nothing else is outstanding.
    mutating func giveUp(_ output: WorkerOutput.Expected) -> KafkaConsumerMessage? {
        guard let settled = settle(output), settled.completed else { return nil }
        return settled.message
    }

    /// Releases the hold of a delivery decided with no output to wait for (its outcome is in Kafka
    /// already); returns the message when nothing else is outstanding.
    mutating func decideWithoutOutput(_ entry: EntryID) -> KafkaConsumerMessage? {
        guard let tracked = entries[entry] else { return nil }
        tracked.undecided -= 1
        deliveriesInFlight -= 1
        return release(tracked, entry)
    }

    /// Ends the planning hold; returns the message when nothing else is outstanding.
    mutating func finishPlanning(_ entry: EntryID) -> KafkaConsumerMessage? {
        release(entry)
    }

    /// Records Kafka's acknowledgement of an output.
    mutating func acknowledge(_ id: KafkaProducerMessageID) -> Acknowledged? {
        guard let output = outputs.remove(Int(truncatingIfNeeded: id.rawValue)) else { return nil }
        return settle(output)
    }

    /// Releases what an output held once Kafka has it (or the worker gave it up).
    private mutating func settle(_ output: WorkerOutput.Expected) -> Acknowledged? {
        guard let tracked = entries[output.entry] else { return nil }
        let decidesDelivery = output.decidesDelivery
        if decidesDelivery {
            tracked.undecided -= 1
            deliveriesInFlight -= 1
        }
        return Acknowledged(message: tracked.message, decidedDelivery: decidesDelivery, completed: release(tracked, output.entry) != nil)
    }

    private mutating func release(_ entry: EntryID) -> KafkaConsumerMessage? {
        guard let tracked = entries[entry] else { return nil }
        return release(tracked, entry)
    }

    /// Counts down an entry already looked up (one dictionary access less per acknowledgement).
    private mutating func release(_ tracked: Entry, _ entry: EntryID) -> KafkaConsumerMessage? {
        tracked.outstanding -= 1
        guard tracked.outstanding == 0 else { return nil }
        entries.remove(entry)
        return tracked.message
    }
}
