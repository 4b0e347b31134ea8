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
    /// Replaced once, by the claim stage, when its payload is sealed (``DeliveryStages``).
    private(set) var delivery: Delivery
    /// What recording needs of the intent, and no more: a copy of the whole ``Intent`` (its
    /// arguments, overrides, custom keys — a dozen references) per delivery, freed on another
    /// thread after recording, showed up in profiles; the rest of the intent is freed where it was
    /// decoded, once planning is done.
    let intentID: String
    let app: String
    let environment: Intent.Environment
    /// The template the intent names, if it names one.
    let template: String?
    /// `created_at`, UNIX milliseconds.
    let createdAt: Int64?
    /// `dedupe_window`, seconds.
    let dedupeWindow: Int64?
    let user: String?
    let pool: String
    let message: KafkaConsumerMessage
    let source: SourcePosition
    /// The message's entry in the ``MessageLedger``.
    let entry: MessageLedger.EntryID
    /// Whether this worker holds the delivery's idempotency claim (false when sent fail-open).
    var holdsClaim = false

    let key: DeliveryKey

    /// - Parameter delivery: taken, not copied: the enricher hands each delivery over as it makes it.
    init(delivery: consuming Delivery, intent: Intent, user: String?, pool: String, message: KafkaConsumerMessage,
         source: SourcePosition, entry: MessageLedger.EntryID) {
        key = DeliveryKey(derivedID: delivery.notificationID)
        self.delivery = delivery
        intentID = intent.id
        app = intent.app
        environment = intent.environment
        template = intent.templateName
        createdAt = intent.createdAt
        dedupeWindow = intent.dedupeWindow
        self.user = user
        self.pool = pool
        self.message = message
        self.source = source
        self.entry = entry
    }

    /// Seals the payload with the recipient's key (or follows the template's rule without one).
    func seal(with key: EncryptionKey?) throws(EnrichmentError) {
        delivery = try PayloadSealer.seal(delivery, with: key)
    }

    /// The notification the sender sends.
    func notification() throws -> APNsNotification {
        APNsNotification(deviceToken: delivery.token, pushType: delivery.pushType, topic: delivery.topic,
                         priority: delivery.priority, expiration: delivery.expiration,
                         collapseID: try delivery.collapseID.map(CollapseID.init), id: delivery.notificationID,
                         payload: delivery.payload)
    }
}
