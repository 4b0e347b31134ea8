import APNsClient
import APNsCore
import Enrichment
import Kafka
import Pipeline

/// One delivery (an intent to one device) on its way through the worker: enriched, then claimed,
/// sent and recorded, or suppressed, or deferred while another attempt holds its claim. A class:
/// it moves through several collections per batch, and copying its many fields each time showed
/// up in profiles.
// @unchecked Sendable: made by a planner task and handed whole to the worker's thread, which alone
// writes `holdsClaim`, before handing the delivery to a send task; the inboxes' locks order both hand-overs.
final class PlannedDelivery: @unchecked Sendable {
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

    let key: DeliveryKey

    init(delivery: Delivery, intent: Intent, user: String?, pool: String, message: KafkaConsumerMessage, source: SourcePosition,
         entry: MessageLedger.EntryID) {
        self.delivery = delivery
        self.intent = intent
        self.user = user
        self.pool = pool
        self.message = message
        self.source = source
        self.entry = entry
        key = DeliveryKey(derivedID: delivery.notificationID)
    }

    /// The notification the sender sends.
    func notification() throws -> APNsNotification {
        APNsNotification(deviceToken: delivery.token, pushType: delivery.pushType, topic: delivery.topic,
                         priority: delivery.priority, expiration: delivery.expiration,
                         collapseID: try delivery.collapseID.map(CollapseID.init), id: delivery.notificationID,
                         payload: delivery.payload)
    }
}
