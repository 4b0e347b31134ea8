import Enrichment
import Kafka
import Pipeline

/// One delivery (an intent to one device) on its way through the worker: enriched, then claimed,
/// sent and recorded, or suppressed, or deferred while another attempt holds its claim.
struct PlannedDelivery {
    let delivery: Delivery
    let intent: Intent
    let user: String?
    let pool: String
    let message: KafkaConsumerMessage
    let source: SourcePosition
    /// The message's entry in the ``MessageLedger``.
    let entry: MessageLedger.EntryID
    /// Whether this worker holds the delivery's idempotency claim (false when sent fail-open).
    var holdsClaim = false

    var key: DeliveryKey { DeliveryKey(intentID: intent.id, deviceToken: delivery.token) }
}
