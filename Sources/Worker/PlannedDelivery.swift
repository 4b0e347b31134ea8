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
        let intentID: String
        let app: String
        let environment: Intent.Environment
        let template: String?
        let createdAt: Int64?
        let dedupeWindow: Int64?
        let user: String?
        /// The recipient's profile language and time zone (nil for explicit tokens, or a profile without them).
        let profileLocale: String?
        let profileTimeZone: String?
        /// A deferred delivery's release (``ReleaseRecord``): quiet hours no longer apply.
        let isRelease: Bool
        let pool: String
        let message: KafkaConsumerMessage
        let source: SourcePosition
        let entry: MessageLedger.EntryID
        let key: DeliveryKey

        init(delivery: consuming Delivery, intentID: String, app: String, environment: Intent.Environment, template: String?,
             createdAt: Int64?, dedupeWindow: Int64?, user: String?, profileLocale: String?, profileTimeZone: String?, isRelease: Bool,
             pool: String, message: KafkaConsumerMessage, source: SourcePosition, entry: MessageLedger.EntryID, key: DeliveryKey) {
            self.delivery = delivery
            self.intentID = intentID
            self.app = app
            self.environment = environment
            self.template = template
            self.createdAt = createdAt
            self.dedupeWindow = dedupeWindow
            self.user = user
            self.profileLocale = profileLocale
            self.profileTimeZone = profileTimeZone
            self.isRelease = isRelease
            self.pool = pool
            self.message = message
            self.source = source
            self.entry = entry
            self.key = key
        }

        func replacing(_ delivery: consuming Delivery) -> Storage {
            Storage(delivery: delivery, intentID: intentID, app: app, environment: environment, template: template,
                    createdAt: createdAt, dedupeWindow: dedupeWindow, user: user, profileLocale: profileLocale,
                    profileTimeZone: profileTimeZone, isRelease: isRelease, pool: pool, message: message, source: source, entry: entry, key: key)
        }
    }

    private let storage: Storage

    /// Read in place (a plain getter would copy the whole ``Delivery`` out, retaining its fields).
    var delivery: Delivery {
        _read { yield storage.delivery }
    }
    /// What recording needs of the intent, and no more: a copy of the whole ``Intent`` (its
    /// arguments, overrides, custom keys — a dozen references) per delivery, freed on another
    /// thread after recording, showed up in profiles; the rest of the intent is freed where it was
    /// decoded, once planning is done.
    var intentID: String { storage.intentID }
    var app: String { storage.app }
    var environment: Intent.Environment { storage.environment }
    /// The template the intent names, if it names one.
    var template: String? { storage.template }
    /// `created_at`, UNIX milliseconds.
    var createdAt: Int64? { storage.createdAt }
    /// `dedupe_window`, seconds.
    var dedupeWindow: Int64? { storage.dedupeWindow }
    var user: String? { storage.user }
    var profileLocale: String? { storage.profileLocale }
    /// The recipient's time zone (IANA) from its profile, for quiet hours; nil: the pipeline's.
    var profileTimeZone: String? { storage.profileTimeZone }
    /// Whether this is a deferred delivery's release: the policy stage skips quiet hours, and its
    /// claim takes over the `deferred` one (docs/policies.md).
    var isRelease: Bool { storage.isRelease }
    /// Whether this is a background push's release: the background budget may have replaced it
    /// (coalesced) or may defer it again.
    var isBackgroundRelease: Bool { storage.isRelease && storage.delivery.pushType == .background }
    var pool: String { storage.pool }
    var message: KafkaConsumerMessage { storage.message }
    var source: SourcePosition { storage.source }
    /// The message's entry in the ``MessageLedger``.
    var entry: MessageLedger.EntryID { storage.entry }
    var key: DeliveryKey { storage.key }

    /// - Parameters:
    ///   - delivery: taken, not copied: the enricher hands each delivery over as it makes it.
    ///   - device: the recipient it was made for (its profile's language and time zone).
    ///   - isRelease: whether the message is a ``ReleaseRecord`` (of version 1).
    init(delivery: consuming Delivery, intent: Intent, user: String?, device: RecipientDevice, isRelease: Bool, pool: String,
         message: KafkaConsumerMessage, source: SourcePosition, entry: MessageLedger.EntryID) {
        let key = DeliveryKey(derivedID: delivery.notificationID)
        storage = Storage(delivery: delivery, intentID: intent.id, app: intent.app, environment: intent.environment,
                          template: intent.templateName, createdAt: intent.createdAt, dedupeWindow: intent.dedupeWindow,
                          user: user, profileLocale: device.profileLocale, profileTimeZone: device.profileTimeZone, isRelease: isRelease,
                          pool: pool, message: message, source: source, entry: entry, key: key)
    }

    /// A release that carries its delivery as planned (``ReleaseRecord/planned(_:)``).
    init(release: ReleaseRecord.Planned, pool: String, message: KafkaConsumerMessage, source: SourcePosition, entry: MessageLedger.EntryID) {
        let delivery = release.delivery
        storage = Storage(delivery: delivery, intentID: release.intentID, app: release.app, environment: delivery.environment,
                          template: release.template, createdAt: release.createdAt, dedupeWindow: release.dedupeWindow,
                          user: release.user, profileLocale: release.profileLocale, profileTimeZone: release.profileTimeZone,
                          isRelease: true, pool: pool, message: message, source: source, entry: entry,
                          key: DeliveryKey(derivedID: delivery.notificationID))
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

    /// The notification the sender sends.
    func notification() throws -> APNsNotification {
        let delivery = storage.delivery
        return APNsNotification(deviceToken: delivery.token, pushType: delivery.pushType, topic: delivery.topic,
                                priority: delivery.priority, expiration: delivery.expiration,
                                collapseID: try delivery.collapseID.map(CollapseID.init), id: delivery.notificationID,
                                payload: delivery.payload)
    }
}
