import APNsClient
import APNsCore
import Enrichment
import Kafka
import Pipeline

/// One delivery (an intent to one device) on its way through the worker: enriched, then claimed,
/// sent and recorded, or suppressed, or deferred while another attempt holds its claim.
///
/// A `Sendable` value: nothing is written into it once it is planned. Whether this worker holds
/// its claim is not a property of the delivery but of the answer it came back in (a claim job's
/// ``DeliveryStages/Claims/admitted`` hold their claims; a ``SentDelivery`` says whether it holds
/// one). Sealing the payload makes a new value. Its fields live in one immutable object, so that
/// moving a delivery through the several arrays of a batch copies one reference, not its many
/// fields (copying them showed up in profiles when it was a class with its fields inline).
struct PlannedDelivery: Sendable {
    private final class Storage: Sendable {
        let delivery: Delivery
        let origin: DeliveryOrigin
        let environment: Intent.Environment
        /// A deferred delivery's release (``ReleaseRecord``): quiet hours no longer apply.
        let isRelease: Bool
        let pool: String
        let message: KafkaConsumerMessage
        let source: SourcePosition
        let entry: MessageLedger.EntryID
        let key: DeliveryKey

        init(delivery: consuming Delivery, origin: DeliveryOrigin, environment: Intent.Environment, isRelease: Bool,
             pool: String, message: KafkaConsumerMessage, source: SourcePosition, entry: MessageLedger.EntryID, key: DeliveryKey) {
            self.delivery = delivery
            self.origin = origin
            self.environment = environment
            self.isRelease = isRelease
            self.pool = pool
            self.message = message
            self.source = source
            self.entry = entry
            self.key = key
        }

        func replacing(_ delivery: consuming Delivery) -> Storage {
            Storage(delivery: delivery, origin: origin, environment: environment, isRelease: isRelease, pool: pool,
                    message: message, source: source, entry: entry, key: key)
        }
    }

    private let storage: Storage

    /// Read in place (a plain getter would copy the whole ``Delivery`` out, retaining its fields).
    var delivery: Delivery {
        _read { yield storage.delivery }
    }
    /// What its records need of its intent and recipient, read in place like ``delivery``;
    /// `intentID` … `profileTimeZone` (but `environment`) read their field of it.
    var origin: DeliveryOrigin {
        _read { yield storage.origin }
    }
    var intentID: String { _read { yield storage.origin.intentID } }
    var app: String { _read { yield storage.origin.app } }
    var environment: Intent.Environment { storage.environment }
    var template: String? { _read { yield storage.origin.template } }
    var createdAt: Int64? { storage.origin.createdAt }
    var dedupeWindow: Int64? { storage.origin.dedupeWindow }
    var user: String? { _read { yield storage.origin.user } }
    var profileTimeZone: String? { _read { yield storage.origin.profileTimeZone } }
    /// Whether this is a deferred delivery's release: the policy stage skips quiet hours, and its
    /// claim takes over the `deferred` one (docs/policies.md).
    var isRelease: Bool { storage.isRelease }
    /// Whether this is a background push's release: the background budget may have replaced it
    /// (coalesced) or may defer it again.
    var isBackgroundRelease: Bool { storage.isRelease && storage.delivery.pushType == .background }
    var pool: String { _read { yield storage.pool } }
    var message: KafkaConsumerMessage { storage.message }
    var source: SourcePosition { _read { yield storage.source } }
    /// The message's entry in the ``MessageLedger``.
    var entry: MessageLedger.EntryID { storage.entry }
    var key: DeliveryKey { storage.key }

    /// - Parameters:
    ///   - delivery: taken, not copied: the enricher hands each delivery over as it makes it.
    ///   - device: the recipient it was made for (its profile's language and time zone).
    ///   - isRelease: whether the message is a ``ReleaseRecord`` (of version 1).
    init(delivery: consuming Delivery, intent: borrowing Intent, user: String?, device: borrowing RecipientDevice, isRelease: Bool,
         pool: String, message: KafkaConsumerMessage, source: SourcePosition, entry: MessageLedger.EntryID) {
        let key = DeliveryKey(derivedID: delivery.notificationID)
        storage = Storage(delivery: delivery, origin: DeliveryOrigin(intent: intent, user: user, device: device),
                          environment: intent.environment, isRelease: isRelease, pool: pool, message: message, source: source,
                          entry: entry, key: key)
    }

    /// A release that carries its delivery as planned (``ReleaseRecord/planned(_:)``).
    init(release: ReleaseRecord.Planned, pool: String, message: KafkaConsumerMessage, source: SourcePosition, entry: MessageLedger.EntryID) {
        let delivery = release.delivery
        storage = Storage(delivery: delivery, origin: release.origin, environment: delivery.environment, isRelease: true, pool: pool,
                          message: message, source: source, entry: entry, key: DeliveryKey(derivedID: delivery.notificationID))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// This delivery with its payload sealed with the recipient's key (or following the template's
    /// rule without one), under `nonce` when given (``PayloadSealer/seal(_:with:nonce:)``).
    func sealed(with key: EncryptionKey?, nonce: ArraySlice<UInt8>?) throws(EnrichmentError) -> PlannedDelivery {
        PlannedDelivery(storage: storage.replacing(try PayloadSealer.seal(storage.delivery, with: key, nonce: nonce)))
    }

    /// This delivery with the headers a delivery policy changed (docs/policies.md).
    func replacingHeaders(priority: APNsPriority, expiration: APNsExpiration) -> PlannedDelivery {
        PlannedDelivery(storage: storage.replacing(storage.delivery.replacingHeaders(priority: priority, expiration: expiration)))
    }

    /// The notification the sender sends, field by field from the delivery in place: a local copy
    /// of the whole delivery retained and released every field of it (its locale's, its policy's),
    /// on the worker's thread, for each delivery of a send.
    func notification() throws -> APNsNotification {
        try APNsNotification(deviceToken: storage.delivery.token, pushType: storage.delivery.pushType, topic: storage.delivery.topic,
                             priority: storage.delivery.priority, expiration: storage.delivery.expiration,
                             collapseID: storage.delivery.collapseID.map(CollapseID.init), id: storage.delivery.notificationID,
                             payload: storage.delivery.payload)
    }
}
