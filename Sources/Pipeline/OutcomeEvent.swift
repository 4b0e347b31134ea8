import APNsCore

/// One event per delivery (intent × device) on `pushline.outcomes`, the record analysts query.
/// Schema: `Config/schemas/outcome-v1.schema.json`, documented in `docs/events.md`.
public struct OutcomeEvent: Sendable, Equatable {
    public static let schemaVersion: Int64 = 1

    /// How the delivery ended. `accepted` means APNs took it — never that a device showed it.
    public enum Status: String, Sendable, CaseIterable {
        case accepted, rejected, suppressed, failed, invalid, expired
        /// APNs may or may not have taken it, and the pipeline's `dedupe.on_uncertain` is `skip`:
        /// it is not sent again (at-most-once).
        case unknown
        /// Held back (quiet hours: reason `QuietHours`) until `release_at`; the delivery's final
        /// outcome follows as a second event when it is released (docs/policies.md).
        case deferred
    }

    public var intentID: String
    public var app: String
    public var environment: String
    public var token: String?
    public var user: String?
    public var template: String?
    public var pushType: String?
    public var topic: String?
    public var collapseID: String?
    public var apnsID: String?
    public var apnsUniqueID: String?
    public var status: Status
    /// APNs' reason, or Pushline's machine-readable reason (`DuplicateIntent`, `StaleCollapse`, …).
    public var reason: String?
    public var apnsStatus: Int?
    /// APNs' 410 `timestamp`, milliseconds.
    public var apnsTimestamp: Int64?
    public var attempts: Int
    public var locale: String?
    public var localeFellBack: Bool
    public var source: SourcePosition
    /// The intent's `created_at` and when this outcome was decided, Unix milliseconds.
    public var createdAt: Int64?
    public var completedAt: Int64
    public var latencyMilliseconds: Double?
    /// When a `deferred` delivery is to be released, Unix milliseconds.
    public var releaseAt: Int64?

    public init(intentID: String, app: String, environment: String, status: Status, source: SourcePosition, completedAt: Int64,
                token: String? = nil, user: String? = nil, template: String? = nil, pushType: String? = nil,
                topic: String? = nil, collapseID: String? = nil, apnsID: String? = nil, apnsUniqueID: String? = nil,
                reason: String? = nil, apnsStatus: Int? = nil, apnsTimestamp: Int64? = nil, attempts: Int = 0,
                locale: String? = nil, localeFellBack: Bool = false, createdAt: Int64? = nil, latencyMilliseconds: Double? = nil,
                releaseAt: Int64? = nil) {
        self.intentID = intentID
        self.app = app
        self.environment = environment
        self.status = status
        self.source = source
        self.completedAt = completedAt
        self.token = token
        self.user = user
        self.template = template
        self.pushType = pushType
        self.topic = topic
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.reason = reason
        self.apnsStatus = apnsStatus
        self.apnsTimestamp = apnsTimestamp
        self.attempts = attempts
        self.locale = locale
        self.localeFellBack = localeFellBack
        self.createdAt = createdAt
        self.latencyMilliseconds = latencyMilliseconds
        self.releaseAt = releaseAt
    }

    /// The event as JSON bytes; absent optional fields are left out.
    public var encoded: [UInt8] {
        Self.written(intentID: intentID, app: app, environment: environment, token: token, user: user, template: template,
                     pushType: pushType, topic: topic, collapseID: collapseID, apnsID: apnsID, locale: locale,
                     localeFellBack: localeFellBack, createdAt: createdAt, decided: SettledOutcome(self))
    }

    /// The JSON bytes of the event with these fields, written straight from them: what a delivery's
    /// planning fixed, and what was ``SettledOutcome`` decided for it (status, reason, APNs' answer,
    /// when, and where its intent was read). The worker writes an outcome per delivery this way,
    /// without an event built and copied first, its `apns_id` from the delivery's `NotificationID`
    /// (no text made for it); ``encoded`` gives the same bytes.
    public static func encoded(intentID: String, app: String, environment: String, token: String?, user: String?,
                               template: String?, pushType: String?, topic: String?, collapseID: String?, apnsID: NotificationID?,
                               locale: String?, localeFellBack: Bool, createdAt: Int64?, decided: SettledOutcome) -> [UInt8] {
        // Through the generic writer below, specialized here for the id: called from another
        // module, a generic function runs unspecialized.
        written(intentID: intentID, app: app, environment: environment, token: token, user: user, template: template,
                pushType: pushType, topic: topic, collapseID: collapseID, apnsID: apnsID, locale: locale,
                localeFellBack: localeFellBack, createdAt: createdAt, decided: decided)
    }

    /// The one writer of the schema's field order, for ``encoded`` (the `apns_id` as text) and the
    /// worker's (a `NotificationID`).
    private static func written(intentID: String, app: String, environment: String, token: String?, user: String?,
                        template: String?, pushType: String?, topic: String?, collapseID: String?, apnsID: (some JSONStringValue)?,
                        locale: String?, localeFellBack: Bool, createdAt: Int64?, decided: SettledOutcome) -> [UInt8] {
        JSONFieldWriter.record { writer in
            writer.integer("schema_version", schemaVersion)
            writer.string("intent_id", intentID)
            writer.string("app", app)
            writer.string("environment", environment)
            writer.string("status", decided.status.rawValue)
            writer.string("token", token)
            writer.string("user", user)
            writer.string("template", template)
            writer.string("push_type", pushType)
            writer.string("topic", topic)
            writer.string("collapse_id", collapseID)
            writer.string("apns_id", apnsID)
            writer.string("apns_unique_id", decided.apnsUniqueID)
            writer.string("reason", decided.reason)
            writer.integer("release_at", decided.releaseAt)
            writer.integer("apns_status", decided.apnsStatus.map(Int64.init))
            writer.integer("apns_timestamp", decided.apnsTimestamp)
            writer.integer("attempts", Int64(decided.attempts))
            writer.string("locale", locale)
            writer.bool("locale_fell_back", localeFellBack)
            decided.source.write("source", to: &writer)
            writer.integer("created_at", createdAt)
            writer.integer("completed_at", decided.completedAt)
            writer.double("latency_ms", decided.latencyMilliseconds)
        }
    }
}
