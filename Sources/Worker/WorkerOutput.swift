import Kafka
import Pipeline

/// A record the worker writes to Kafka for one intent message, with what the metrics need to know
/// about it.
struct WorkerOutput: Sendable {
    enum Kind: Sendable {
        /// An outcome event; `decidesDelivery` when it is the outcome of a ``PlannedDelivery``.
        case outcome(OutcomeEvent.Status, reason: String?, decidesDelivery: Bool)
        case deadLetter(reason: String)
        case tokenEvent(TokenEvent.Kind)
    }

    let record: KafkaProducerMessage
    let kind: Kind
    /// The intent message's entry in the ``MessageLedger``.
    let entry: MessageLedger.EntryID
    /// Whether this record is the stand-in for one Kafka refused for good (it is not replaced again).
    var isStandIn = false

    /// What the ``MessageLedger`` keeps of a produced output until Kafka acknowledges it: not the
    /// record, whose bytes a refusal's report hands back (``KafkaDeliveryReport/refusedMessage``),
    /// so no outcome's bytes are held (and freed cold) for the round trip to Kafka.
    struct Expected: Sendable {
        let kind: Kind
        let entry: MessageLedger.EntryID
        let isStandIn: Bool

        /// Whether the output is a delivery's outcome: its acknowledgement decides the delivery.
        var decidesDelivery: Bool {
            if case .outcome(_, _, let decides) = kind { decides } else { false }
        }

        /// The output again, with the record Kafka handed back.
        func output(record: KafkaProducerMessage) -> WorkerOutput {
            var output = WorkerOutput(record: record, kind: kind, entry: entry)
            output.isStandIn = isStandIn
            return output
        }
    }

    var expected: Expected {
        Expected(kind: kind, entry: entry, isStandIn: isStandIn)
    }

    /// The record that takes this one's place after Kafka refused it for good with `error`
    /// (``RefusedRecord``): same topic, same kind and message, texts cut short, marked `replaced`.
    func standIn(after error: KafkaError) -> WorkerOutput {
        let value = RefusedRecord.standIn(for: record.value ?? [], error: error.code.name)
        var output = WorkerOutput(record: KafkaProducerMessage(topic: record.topic, partition: record.partition,
                                                               key: RefusedRecord.standIn(forKey: record.key), value: value),
                                  kind: kind, entry: entry)
        output.isStandIn = true
        return output
    }
}
