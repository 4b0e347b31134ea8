import APNsCore

/// A notification intent, schema v1 (`docs/intent-schema.md`): what happened, for whom, and which
/// template tells it; Pushline turns it into one APNs request per device.
public struct Intent: Sendable, Equatable {
    /// Which APNs endpoint the devices' tokens belong to.
    public enum Environment: String, Sendable, CaseIterable {
        case production
        case sandbox
    }

    /// Who receives the notification.
    public enum Recipients: Sendable, Equatable {
        /// Explicit device tokens.
        case tokens([DeviceToken])
        /// A user id the pipeline resolves to devices through the token registry.
        case user(String)
    }

    /// What the notification says.
    public enum Content: Sendable, Equatable {
        /// A template name in the app's catalog, filled with ``Intent/args``.
        case template(String)
        /// A raw APNs payload, sent as given after validation.
        case payload(JSONObject)
    }

    /// Values that replace the template's. (`let`s, as the intent's: see
    /// ``Intent/init(id:app:environment:recipients:content:args:locale:overrides:custom:dedupeWindow:createdAt:liveActivity:policy:)``.)
    public struct Overrides: Sendable, Equatable {
        /// `push_type`.
        public let pushType: PushType?
        public let priority: APNsPriority?
        public let expiration: APNsExpiration
        public let collapseID: String?
        public let threadID: String?
        public let interruptionLevel: InterruptionLevel?
        public let relevanceScore: Double?
        public let badge: Int?
        public let sound: String?
        public let category: String?

        /// The overrides given; by default none, and the template decides.
        public init(pushType: PushType? = nil, priority: APNsPriority? = nil, expiration: APNsExpiration = .unspecified,
                    collapseID: String? = nil, threadID: String? = nil, interruptionLevel: InterruptionLevel? = nil,
                    relevanceScore: Double? = nil, badge: Int? = nil, sound: String? = nil, category: String? = nil) {
            self.pushType = pushType
            self.priority = priority
            self.expiration = expiration
            self.collapseID = collapseID
            self.threadID = threadID
            self.interruptionLevel = interruptionLevel
            self.relevanceScore = relevanceScore
            self.badge = badge
            self.sound = sound
            self.category = category
        }
    }

    /// The Live Activity part of an intent: which event, and its dates and attributes.
    public struct LiveActivity: Sendable, Equatable {
        public var event: LiveActivityEvent
        /// UNIX seconds.
        public var staleDate: Int64?
        /// UNIX seconds.
        public var dismissalDate: Int64?
        /// The static attributes; `start` only.
        public var attributes: JSONObject?

        /// A Live Activity event with its optional dates and (for `start`) attributes.
        public init(event: LiveActivityEvent, staleDate: Int64? = nil, dismissalDate: Int64? = nil,
                    attributes: JSONObject? = nil) {
            self.event = event
            self.staleDate = staleDate
            self.dismissalDate = dismissalDate
            self.attributes = attributes
        }
    }

    /// What the delivery policies read of an intent (docs/policies.md): all optional, additive
    /// fields of schema v1. Each may also come from the template's `policies:`; the intent's wins.
    public struct Policy: Sendable, Equatable {
        /// `policy_category`: the category frequency caps and quiet hours count by (`marketing`,
        /// `transactional`, …). Not `category`, which schema v1 already gives to `aps.category`.
        public let category: String?
        /// `lane`: the priority lane the sender schedules it in.
        public let lane: String?
        /// `expires_at`, UNIX seconds: not sent after it (`expired`/`TimeToLiveElapsed`); also
        /// `apns-expiration` unless the intent sets `expiration`.
        public let expiresAt: Int64?
        /// `respect_quiet_hours`: false sends it through the recipient's quiet hours.
        public let respectQuietHours: Bool?
        /// `campaign`: the name throttles count by.
        public let campaign: String?

        /// The policy fields given; by default none, and the template's and the pipeline's
        /// settings decide. (`let`s, as the intent's: see ``Intent/init(id:app:environment:recipients:content:args:locale:overrides:custom:dedupeWindow:createdAt:liveActivity:policy:)``.)
        public init(category: String? = nil, lane: String? = nil, expiresAt: Int64? = nil, respectQuietHours: Bool? = nil,
                    campaign: String? = nil) {
            self.category = category
            self.lane = lane
            self.expiresAt = expiresAt
            self.respectQuietHours = respectQuietHours
            self.campaign = campaign
        }
    }

    /// The idempotency key: the same intent is never sent twice to the same device.
    public let id: String
    /// The app's bundle id; also the `apns-topic` before any push-type suffix.
    public let app: String
    /// `environment`: production unless the intent says sandbox.
    public let environment: Environment
    /// `tokens` or `user`.
    public let recipients: Recipients
    /// `template` or `payload`.
    public let content: Content
    /// Values for the template's placeholders.
    public let args: JSONObject
    /// BCP 47 language tag chosen by the backend; wins over the user's profile.
    public let locale: String?
    /// The override fields (`push_type`, `priority`, `expiration`, …).
    public let overrides: Overrides
    /// Extra top-level payload keys; they win over the template's custom keys of the same name.
    public let custom: JSONObject
    /// Seconds during which a repeat with the same collapse id is suppressed by the pipeline.
    public let dedupeWindow: Int64?
    /// When the backend created the intent, UNIX milliseconds.
    public let createdAt: Int64?
    /// `live_activity`: makes a Live Activity push.
    public let liveActivity: LiveActivity?
    /// The fields the delivery policies read.
    public let policy: Policy

    /// This intent with `locale` in place of its own (`pushline render --locale`).
    public func replacingLocale(_ locale: String) -> Intent {
        Intent(id: id, app: app, environment: environment, recipients: recipients, content: content, args: args,
               locale: locale, overrides: overrides, custom: custom, dedupeWindow: dedupeWindow, createdAt: createdAt,
               liveActivity: liveActivity, policy: policy)
    }

    /// The template the intent names; nil for a raw payload.
    public var templateName: String? {
        if case .template(let name) = content { name } else { nil }
    }

    /// An intent with the required fields and any of the others. Its properties are `let`s with
    /// no initial values: were one holding a reference to start with a value (as a `var` optional
    /// starts as nil) and be set here, the initializer would end by copying the whole intent, a
    /// retain and a release for each of its strings and objects (docs/BENCHMARKS.md).
    public init(id: String, app: String, environment: Environment = .production, recipients: Recipients,
                content: Content, args: JSONObject = JSONObject(), locale: String? = nil,
                overrides: Overrides = Overrides(), custom: JSONObject = JSONObject(), dedupeWindow: Int64? = nil,
                createdAt: Int64? = nil, liveActivity: LiveActivity? = nil, policy: Policy = Policy()) {
        self.id = id
        self.app = app
        self.environment = environment
        self.recipients = recipients
        self.content = content
        self.args = args
        self.locale = locale
        self.overrides = overrides
        self.custom = custom
        self.dedupeWindow = dedupeWindow
        self.createdAt = createdAt
        self.liveActivity = liveActivity
        self.policy = policy
    }
}
