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
}
